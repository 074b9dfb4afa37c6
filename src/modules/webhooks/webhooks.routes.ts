import type { RestRoute } from '../../kernel/domain-manifest';

/** The webhooks module's REST routes (docs/api.md, "Webhooks"). */
export const WEBHOOKS_ROUTES: readonly RestRoute[] = [
  {
    area: 'devportal',
    method: 'POST',
    path: '/developers/{id}/webhooks',
    field: 'Mutation.createWebhook',
    auth: 'dev-jwt',
    // docs/api.md, Webhooks: the last attempt's state is left out until there is one.
    omitWhenNull: ['lastAttemptAt', 'lastResponseStatus', 'lastError'],
    summary: 'Create a webhook (its signing secret is shown once)',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/developers/{id}/webhooks',
    field: 'Query.webhooks',
    auth: 'dev-jwt',
    omitWhenNull: ['items[].lastAttemptAt', 'items[].lastResponseStatus', 'items[].lastError'],
    summary: 'The caller’s active webhooks, without secrets',
  },
  {
    area: 'devportal',
    method: 'DELETE',
    path: '/webhooks/{webhookId}',
    field: 'Mutation.deleteWebhook',
    auth: 'dev-jwt',
    omitWhenNull: ['lastAttemptAt', 'lastResponseStatus', 'lastError'],
    summary: 'Delete a webhook; its pending deliveries stop',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/webhooks/{webhookId}/deliveries',
    field: 'Query.webhookDeliveries',
    auth: 'dev-jwt',
    omitWhenNull: ['items[].lastError'],
    summary: 'Recent deliveries of a webhook, newest first',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/webhooks/{webhookId}/test',
    field: 'Mutation.testWebhook',
    auth: 'dev-jwt',
    omitWhenNull: ['lastError'],
    summary: 'Send a webhook.test message to a webhook (queued, signed and retried like any other)',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
    field: 'Mutation.redeliverWebhookDelivery',
    auth: 'dev-jwt',
    omitWhenNull: ['lastError'],
    summary: 'Send a delivery again (a settled one is queued anew; a pending one is due at once)',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/webhooks/{webhookId}/rotate-secret',
    field: 'Mutation.rotateWebhookSecret',
    auth: 'dev-jwt',
    summary: 'Give a webhook a new signing secret (shown once); the replaced one still signs for 24 h',
  },
];
