import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../auth/request-context';
import type { WebhookService } from './webhooks.service';
import {
  CreatedWebhook,
  CreateWebhookInput,
  RotatedWebhookSecret,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookInfo,
  WebhookList,
} from './webhooks.types';

@Resolver()
export class WebhooksResolver {
  constructor(private readonly service: WebhookService) {}

  @Mutation(() => CreatedWebhook, {
    description: 'Creates a webhook; its signing secret is in this answer only (developer token, own id).',
  })
  createWebhook(
    @Arg('id', () => ID, { description: 'Developer id; must be the caller’s own.' }) id: string,
    @Arg('input', () => CreateWebhookInput, { description: 'Receiver URL, events and filters.' })
    input: CreateWebhookInput,
    @Ctx() ctx: RequestContext,
  ): Promise<CreatedWebhook> {
    return this.service.create(ctx.session, id, input);
  }

  @Query(() => WebhookList, { description: "The caller's active webhooks, without secrets (developer token, own id)." })
  webhooks(
    @Arg('id', () => ID, { description: 'Developer id; must be the caller’s own.' }) id: string,
    @Ctx() ctx: RequestContext,
  ): Promise<WebhookList> {
    return this.service.list(ctx.session, id);
  }

  @Mutation(() => WebhookInfo, { description: 'Deletes a webhook of the caller; its pending deliveries stop.' })
  deleteWebhook(
    @Arg('webhookId', () => ID, { description: 'Webhook id.' }) webhookId: string,
    @Ctx() ctx: RequestContext,
  ): Promise<WebhookInfo> {
    return this.service.delete(ctx.session, webhookId);
  }

  @Query(() => WebhookDeliveryPage, { description: 'Recent deliveries of a webhook of the caller, newest first.' })
  webhookDeliveries(
    @Arg('webhookId', () => ID, { description: 'Webhook id.' }) webhookId: string,
    @Arg('limit', () => Int, { nullable: true, description: 'Page size, 1 to 100 (default 25).' })
    limit: number | null,
    @Arg('cursor', () => String, { nullable: true, description: 'nextCursor of the previous page.' })
    cursor: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<WebhookDeliveryPage> {
    return this.service.deliveries(ctx.session, webhookId, limit, cursor);
  }

  @Mutation(() => WebhookDelivery, {
    description:
      'Queues a webhook.test message to a webhook of the caller, signed and sent like any other; answers the delivery ' +
      '(follow it in webhookDeliveries).',
  })
  testWebhook(
    @Arg('webhookId', () => ID, { description: 'Webhook id.' }) webhookId: string,
    @Ctx() ctx: RequestContext,
  ): Promise<WebhookDelivery> {
    return this.service.test(ctx.session, webhookId);
  }

  @Mutation(() => WebhookDelivery, {
    description:
      'Sends a delivery of a webhook of the caller again: a delivered or failed one is queued anew (same message id ' +
      'and body), a pending one is due at once.',
  })
  redeliverWebhookDelivery(
    @Arg('webhookId', () => ID, { description: 'Webhook id.' }) webhookId: string,
    @Arg('deliveryId', () => ID, { description: 'Delivery (message) id, from webhookDeliveries.' }) deliveryId: string,
    @Ctx() ctx: RequestContext,
  ): Promise<WebhookDelivery> {
    return this.service.redeliver(ctx.session, webhookId, deliveryId);
  }

  @Mutation(() => RotatedWebhookSecret, {
    description:
      'Gives a webhook of the caller a new signing secret, shown in this answer only; the replaced one still signs ' +
      'for 24 h (both signatures are sent).',
  })
  rotateWebhookSecret(
    @Arg('webhookId', () => ID, { description: 'Webhook id.' }) webhookId: string,
    @Ctx() ctx: RequestContext,
  ): Promise<RotatedWebhookSecret> {
    return this.service.rotateSecret(ctx.session, webhookId);
  }
}
