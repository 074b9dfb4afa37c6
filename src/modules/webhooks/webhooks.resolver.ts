import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../auth/request-context';
import type { WebhookService } from './webhooks.service';
import { CreatedWebhook, CreateWebhookInput, WebhookDeliveryPage, WebhookInfo, WebhookList } from './webhooks.types';

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
}
