import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** One message of the outbox: sent (and retried) until delivered, failed for good, or cancelled. */
@Entity('webhook_deliveries')
@Index('webhook_deliveries_log_idx', ['webhookId', 'seq'])
export class WebhookDeliveryEntity {
  @PrimaryColumn('uuid')
  id!: string;

  /** Order of the webhook's messages: the worker sends the lowest pending one first. */
  @Column({ type: 'bigint', unique: true, generated: 'increment' })
  seq!: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId!: string;

  @Column({ type: 'text' })
  type!: string;

  /** The message exactly as sent (the signature covers these bytes). */
  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'text' })
  status!: DeliveryStatus;

  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  @Column({ name: 'last_response_status', type: 'integer', nullable: true })
  lastResponseStatus!: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  @Column({ name: 'next_attempt_at', type: 'timestamptz' })
  nextAttemptAt!: Date;

  @Column({ name: 'first_attempt_at', type: 'timestamptz', nullable: true })
  firstAttemptAt!: Date | null;

  /** The claim of the instance sending it now, valid until leaseUntil. */
  @Column({ name: 'lease_token', type: 'uuid', nullable: true })
  leaseToken!: string | null;

  @Column({ name: 'lease_until', type: 'timestamptz', nullable: true })
  leaseUntil!: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt!: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
