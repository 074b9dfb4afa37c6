import { ArrayMaxSize, ArrayMinSize, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';

/** What a webhook can subscribe to (dotted names, the same over REST and GraphQL). */
export const WEBHOOK_EVENT_TYPES = ['contract.event', 'transaction.status'] as const;

@InputType({ description: 'A new webhook.' })
export class CreateWebhookInput {
  @Field({ description: 'Receiver URL (http or https, at most 2048 characters).' })
  @IsString()
  @MaxLength(2048, { message: 'url must be at most 2048 characters' })
  url!: string;

  @Field(() => [String], {
    description: 'What to send: a non-empty subset of contract.event, transaction.status.',
  })
  @ArrayMinSize(1, { message: 'events must not be empty' })
  @ArrayMaxSize(10)
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: 'events may hold only contract.event and transaction.status' })
  events!: string[];

  @Field(() => ID, {
    nullable: true,
    description: 'Only this contract of the caller (required for contract.event; filters transaction.status).',
  })
  @IsOptional()
  @IsUUID('all', { message: 'contractId must be a UUID' })
  contractId?: string;

  @Field({
    nullable: true,
    description: 'Only this event of the contract: a name or a full signature (needs contractId).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  event?: string;
}

@ObjectType('Webhook', { description: 'A webhook as listed: never its secret.' })
export class WebhookInfo {
  @Field(() => ID, { description: 'Webhook id.' })
  id!: string;

  @Field({ description: 'Receiver URL.' })
  url!: string;

  @Field(() => [String], { description: 'Subscribed event types: contract.event, transaction.status.' })
  events!: string[];

  @Field(() => ID, { nullable: true, description: 'The only contract it reports on, if any.' })
  contractId!: string | null;

  @Field(() => String, { nullable: true, description: 'Canonical signature of the only contract event sent, if any.' })
  event!: string | null;

  @Field({ description: 'active, or deleted.' })
  status!: string;

  @Field({ description: 'When the webhook was created.' })
  createdAt!: Date;

  @Field(() => Date, {
    nullable: true,
    description: 'When any of its deliveries was last attempted; null before the first attempt (left out over REST).',
  })
  lastAttemptAt!: Date | null;

  @Field(() => Int, {
    nullable: true,
    description: 'HTTP status of the last attempt’s answer; null when none came or none was made (left out over REST).',
  })
  lastResponseStatus!: number | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Why the last attempt failed ("connection refused", "timeout after 10 s", "status 500: <the answer’s first ' +
      '200 characters>"); null after a success or before any attempt (left out over REST).',
  })
  lastError!: string | null;
}

@ObjectType({ description: 'A new webhook: the only time its signing secret is shown.' })
export class CreatedWebhook extends WebhookInfo {
  @Field({
    description: 'Signing secret (whsec_...), Standard Webhooks format. Store it now: it is never shown again.',
  })
  secret!: string;
}

@ObjectType({ description: 'The developer’s active webhooks.' })
export class WebhookList {
  @Field(() => [WebhookInfo], { description: 'Webhooks, oldest first.' })
  items!: WebhookInfo[];
}

@ObjectType({ description: 'One message to a webhook and how its delivery went.' })
export class WebhookDelivery {
  @Field(() => ID, { description: 'Message id (the Webhook-Id header and the message’s id).' })
  id!: string;

  @Field({ description: 'contract.event, transaction.status, or webhook.test (sent on request).' })
  type!: string;

  @Field({ description: 'pending, delivered, failed (retries exhausted) or cancelled (webhook deleted).' })
  status!: string;

  @Field(() => Int, { description: 'POSTs made so far.' })
  attempts!: number;

  @Field(() => Int, { nullable: true, description: 'HTTP status of the last answer; null when none came.' })
  lastResponseStatus!: number | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Why the last attempt failed ("connection refused", "timeout after 10 s", "status 500: <the answer’s first ' +
      '200 characters>"); null once delivered or before any attempt (left out over REST).',
  })
  lastError!: string | null;

  @Field(() => Date, { nullable: true, description: 'When the next attempt is due; null once settled.' })
  nextAttemptAt!: Date | null;

  @Field({ description: 'When the message was created.' })
  createdAt!: Date;
}

@ObjectType({ description: 'A page of a webhook’s deliveries, newest first.' })
export class WebhookDeliveryPage {
  @Field(() => [WebhookDelivery], { description: 'Deliveries, newest first.' })
  items!: WebhookDelivery[];

  @Field(() => String, { nullable: true, description: 'Cursor of the next page; null at the end.' })
  nextCursor!: string | null;
}

@ObjectType({ description: 'A webhook’s new signing secret: the only time it is shown.' })
export class RotatedWebhookSecret {
  @Field(() => ID, { description: 'Webhook id.' })
  webhookId!: string;

  @Field({
    description: 'New signing secret (whsec_...), Standard Webhooks format. Store it now: it is never shown again.',
  })
  secret!: string;

  @Field({
    description:
      'Until when the replaced secret still signs too (24 h): messages carry both signatures, space-separated, in ' +
      'Webhook-Signature.',
  })
  previousSecretExpiresAt!: Date;
}
