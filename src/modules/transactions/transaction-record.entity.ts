import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Network } from '../../kernel/network';

export type TransactionRecordKind = 'invoke' | 'deploy' | 'faucet';
export type TransactionRecordStatus = 'queued' | 'pending' | 'success' | 'reverted' | 'failed' | 'cancelled';

/** What a record's transaction asked for, as sent the first time: integers as decimal strings. */
export interface RecordedCall {
  to: string;
  data: string;
  value?: string;
  gasLimit?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  gasPrice?: string;
  timeoutSeconds?: number;
}

/**
 * One change of a record's status as stored (the `history` column): when, the signed transaction it
 * concerns, and why. GraphQL shows it as TransactionHistoryEntry, absent fields as null.
 */
export interface StoredHistoryEntry {
  status: TransactionRecordStatus;
  /** ISO-8601 UTC, milliseconds. */
  at: string;
  txHash?: string;
  reason?: string;
}

/**
 * One invoke, deploy or faucet drip, followed from acceptance to its end. The signed transactions
 * sent for it are rows of chain_transactions naming it (`record_id`); every change of its status is
 * written in the database transaction that changes theirs.
 */
@Entity('transaction_records')
export class TransactionRecordEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  kind!: TransactionRecordKind;

  @Column({ type: 'text' })
  network!: Network;

  @Column({ name: 'developer_id', type: 'uuid' })
  developerId!: string;

  /** The API key that sent it (invokes); only that key, or the developer's token, may read it. */
  @Column({ name: 'api_key_id', type: 'uuid', nullable: true })
  apiKeyId!: string | null;

  @Column({ name: 'contract_id', type: 'uuid', nullable: true })
  contractId!: string | null;

  @Column({ type: 'text', nullable: true })
  method!: string | null;

  @Column({ type: 'text' })
  status!: TransactionRecordStatus;

  @Column({ name: 'tx_hash', type: 'text', nullable: true })
  txHash!: string | null;

  @Column({ type: 'bigint', nullable: true })
  nonce!: string | null;

  @Column({ name: 'block_number', type: 'bigint', nullable: true })
  blockNumber!: string | null;

  @Column({ name: 'gas_used', type: 'numeric', precision: 78, scale: 0, nullable: true })
  gasUsed!: string | null;

  @Column({ name: 'revert_reason', type: 'text', nullable: true })
  revertReason!: string | null;

  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /** What an invoke asked to send, to send it again (docs/api.md, "Transactions": retry); null otherwise. */
  @Column({ type: 'jsonb', nullable: true })
  call!: RecordedCall | null;

  /** Every change of its status, oldest first (docs/api.md, "Transactions": history). */
  @Column({ type: 'jsonb', default: () => "'[]'::jsonb" })
  history!: StoredHistoryEntry[];

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
