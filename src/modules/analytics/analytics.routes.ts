import type { RestRoute } from '../../kernel/domain-manifest';

/** The analytics module's REST routes (docs/api.md, "Analytics"). */
export const ANALYTICS_ROUTES: readonly RestRoute[] = [
  {
    area: 'devportal',
    method: 'GET',
    path: '/developers/{id}/analytics',
    field: 'Query.analytics',
    auth: 'dev-jwt',
    summary: 'Gateway usage analytics',
  },
];
