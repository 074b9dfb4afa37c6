import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** What a webhook can subscribe to. */
export type WebhookEventType = 'contract.event' | 'transaction.status';
export type WebhookStatus = 'active' | 'deleted';

/** A developer's webhook; its signing secret is kept sealed (AES-256-GCM), never in clear. */
@Entity('webhooks')
@Index('webhooks_developer_idx', ['developerId', 'createdAt'])
export class WebhookEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ name: 'developer_id', type: 'uuid' })
  developerId!: string;

  @Column({ type: 'text' })
  url!: string;

  @Column({ type: 'text', array: true })
  events!: WebhookEventType[];

  @Column({ name: 'contract_id', type: 'uuid', nullable: true })
  contractId!: string | null;

  /** Canonical signature of the one contract event wanted; null for every event. */
  @Column({ type: 'text', nullable: true })
  event!: string | null;

  @Column({ type: 'text' })
  status!: WebhookStatus;

  @Column({ name: 'secret_sealed', type: 'bytea', select: false })
  secretSealed!: Buffer;

  /** Position of the last contract event fanned out (block, log index). */
  @Column({ name: 'event_cursor_block', type: 'bigint', nullable: true })
  eventCursorBlock!: string | null;

  @Column({ name: 'event_cursor_log', type: 'integer', nullable: true })
  eventCursorLog!: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;

  /** The webhook's last delivery attempt (any of its deliveries): when, the answer's status, the failure. */
  @Column({ name: 'last_attempt_at', type: 'timestamptz', nullable: true })
  lastAttemptAt!: Date | null;

  @Column({ name: 'last_response_status', type: 'integer', nullable: true })
  lastResponseStatus!: number | null;

  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  /** The secret replaced by the last rotation, sealed like the current one; it still signs until previousSecretUntil. */
  @Column({ name: 'previous_secret_sealed', type: 'bytea', nullable: true, select: false })
  previousSecretSealed!: Buffer | null;

  @Column({ name: 'previous_secret_until', type: 'timestamptz', nullable: true })
  previousSecretUntil!: Date | null;
}
