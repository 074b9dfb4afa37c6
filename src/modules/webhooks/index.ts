/** What the webhooks module offers the other modules (the only file they may import from it). */
import { domainManifest } from '../../kernel/domain-manifest';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEntity } from './webhook.entity';
import { WebhooksResolver } from './webhooks.resolver';
import { WEBHOOKS_ROUTES } from './webhooks.routes';
import type { WebhookService } from './webhooks.service';

export { WebhookService, MAX_WEBHOOKS, type ContractEventSource, type EventPosition } from './webhooks.service';
export { WebhookDeliveryWorker, DEFAULT_DELIVERY_OPTIONS, type DeliveryWorkerOptions } from './delivery-worker';
export { WebhookEntity } from './webhook.entity';
export { WebhookDeliveryEntity } from './webhook-delivery.entity';
export { webhookBacklog, type WebhookBacklog } from './webhook-backlog';

/** The webhooks domain: signed notifications of a developer's events, queued and retried. */
export const WEBHOOKS_MODULE = domainManifest<{ webhooks: WebhookService }>({
  name: 'webhooks',
  entities: [WebhookEntity, WebhookDeliveryEntity],
  resolvers: [{ type: WebhooksResolver, build: (s) => new WebhooksResolver(s.webhooks) }],
  routes: WEBHOOKS_ROUTES,
});
