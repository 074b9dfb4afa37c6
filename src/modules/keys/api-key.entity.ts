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
}
