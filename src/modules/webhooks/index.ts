/** What the webhooks module offers the other modules (the only file they may import from it). */
export { WebhookService, MAX_WEBHOOKS, type ContractEventSource, type EventPosition } from './webhooks.service';
export { WebhookDeliveryWorker, DEFAULT_DELIVERY_OPTIONS, type DeliveryWorkerOptions } from './delivery-worker';
export { WebhookEntity } from './webhook.entity';
export { WebhookDeliveryEntity } from './webhook-delivery.entity';
export { webhookBacklog, type WebhookBacklog } from './webhook-backlog';
