import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { ApiKeyScope } from '../../auth/authority';

export type { ApiKeyScope };
export type ApiKeyStatus = 'active' | 'revoked';

/** An API key; only its SHA-256 and a display prefix are stored, never the key. */
@Entity('api_keys')
export class ApiKeyEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'developer_id', type: 'uuid' })
  developerId!: string;

  @Column({ type: 'text', nullable: true })
  name!: string | null;

  /** First 12 characters of the key (`svc_` + 8), for recognising it in lists. */
  @Column({ type: 'text' })
  prefix!: string;

  /** SHA-256 (hex) of the whole key. */
  @Column({ name: 'key_hash', type: 'text', unique: true, select: false })
  keyHash!: string;

  @Column({ type: 'text', array: true })
  scopes!: ApiKeyScope[];

  @Column({ name: 'contract_id', type: 'uuid', nullable: true })
  contractId!: string | null;

  @Column({ name: 'project_id', type: 'uuid', nullable: true })
  projectId!: string | null;

  @Column({ type: 'text' })
  status!: ApiKeyStatus;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  /** The contracts the key is restricted to (contract_id holds it too when there is one). */
  @Column({ name: 'contract_ids', type: 'uuid', array: true, nullable: true })
  contractIds!: string[] | null;

  @Column({ name: 'allowed_origins', type: 'text', array: true, nullable: true })
  allowedOrigins!: string[] | null;

  @Column({ name: 'allowed_ips', type: 'text', array: true, nullable: true })
  allowedIps!: string[] | null;

  @Column({ name: 'allowed_methods', type: 'text', array: true, nullable: true })
  allowedMethods!: string[] | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'rate_limit_per_second', type: 'integer', nullable: true })
  rateLimitPerSecond!: number | null;

  @Column({ name: 'daily_quota', type: 'integer', nullable: true })
  dailyQuota!: number | null;

  /** Spend caps (docs/api.md, "API keys": spend caps), wei or gas as decimal strings; null: no cap. */
  @Column({ name: 'spend_max_value_wei_per_tx', type: 'numeric', precision: 78, scale: 0, nullable: true })
  spendMaxValueWeiPerTx!: string | null;

  @Column({ name: 'spend_max_value_wei_per_day', type: 'numeric', precision: 78, scale: 0, nullable: true })
  spendMaxValueWeiPerDay!: string | null;

  @Column({ name: 'spend_max_fee_per_gas_wei', type: 'numeric', precision: 78, scale: 0, nullable: true })
  spendMaxFeePerGasWei!: string | null;

  @Column({ name: 'spend_max_gas_per_day', type: 'numeric', precision: 78, scale: 0, nullable: true })
  spendMaxGasPerDay!: string | null;

  /** SHA-256 of the secret a rotation replaced; it works until previousKeyValidUntil. */
  @Column({ name: 'previous_key_hash', type: 'text', nullable: true, select: false })
  previousKeyHash!: string | null;

  @Column({ name: 'previous_key_valid_until', type: 'timestamptz', nullable: true })
  previousKeyValidUntil!: Date | null;
}
