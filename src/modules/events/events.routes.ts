import type { RestRoute } from '../../kernel/domain-manifest';

/** The events module's REST routes (docs/api.md, "Contract events"). */
export const EVENTS_ROUTES: readonly RestRoute[] = [
  {
    area: 'devportal',
    method: 'GET',
    path: '/contracts/{id}/events',
    field: 'Query.contractEvents',
    auth: 'dev-jwt-or-api-key',
    summary: 'Decoded events of a contract, oldest first (owner’s token, or an API key with scope read)',
    // docs/api.md "Hostile chain data": decoded and data only on an event over the decoding bounds.
    omitWhenNull: ['items[].decoded', 'items[].data'],
  },
];
