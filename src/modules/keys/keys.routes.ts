import type { RestRoute } from '../../kernel/domain-manifest';

/** The keys module's REST routes (docs/api.md, "API keys"). */
export const KEYS_ROUTES: readonly RestRoute[] = [
  {
    area: 'devportal',
    method: 'POST',
    path: '/developers/{id}/api-keys',
    field: 'Mutation.createApiKey',
    auth: 'dev-jwt',
    summary: 'Issue an API key (the full key is shown once)',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/developers/{id}/api-keys',
    field: 'Query.apiKeys',
    auth: 'dev-jwt',
    summary: 'The caller’s API keys, without secrets',
  },
  {
    area: 'devportal',
    method: 'DELETE',
    path: '/api-keys/{keyId}',
    field: 'Mutation.revokeApiKey',
    auth: 'dev-jwt',
    summary: 'Revoke an API key',
  },
  {
    area: 'devportal',
    method: 'PATCH',
    path: '/api-keys/{keyId}',
    field: 'Mutation.updateApiKey',
    auth: 'dev-jwt',
    summary: 'Change an API key’s name and policies',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/api-keys/{keyId}/rotate',
    field: 'Mutation.rotateApiKey',
    auth: 'dev-jwt',
    summary: 'Rotate an API key’s secret (the new key is shown once)',
  },
];
