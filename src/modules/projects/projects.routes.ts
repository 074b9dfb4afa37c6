import type { RestRoute } from '../../kernel/domain-manifest';

/** The projects module's REST routes (docs/api.md, "Developer account and projects"). */
export const PROJECTS_ROUTES: readonly RestRoute[] = [
  {
    area: 'devportal',
    method: 'POST',
    path: '/projects',
    field: 'Mutation.createProject',
    auth: 'dev-jwt',
    summary: 'Create a project',
  },
];
