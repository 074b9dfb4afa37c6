import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Network } from '../../kernel/network';

/** `cancel`: the 0-value transfer to itself that replaces a pending transaction its record cancels. */
export type ChainTransactionKind = 'faucet' | 'deploy' | 'invoke' | 'nonce-filler' | 'cancel';
export type ChainTransactionStatus = 'pending' | 'success' | 'reverted' | 'dropped';

/**
 * Every transaction the service signs, recorded (with its raw bytes) in the same database
 * transaction that allocated its nonce, so nothing sent is ever forgotten.
 */
@Entity('chain_transactions')
export class ChainTransactionEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  network!: Network;

  @Column({ name: 'from_address', type: 'text' })
  fromAddress!: string;

  @Column({ name: 'to_address', type: 'text', nullable: true })
  toAddress!: string | null;

  @Column({ type: 'bigint' })
  nonce!: string;

  @Column({ name: 'tx_hash', type: 'text' })
  txHash!: string;

  @Column({ name: 'raw_tx', type: 'text', select: false })
  rawTx!: string;

  @Column({ type: 'text' })
  kind!: ChainTransactionKind;

  @Column({ name: 'value_wei', type: 'numeric', precision: 78, scale: 0 })
  valueWei!: string;

  @Column({ name: 'developer_id', type: 'uuid', nullable: true })
  developerId!: string | null;

  @Column({ name: 'contract_id', type: 'uuid', nullable: true })
  contractId!: string | null;

  @Column({ type: 'text', nullable: true })
  method!: string | null;

  @Column({ type: 'text' })
  status!: ChainTransactionStatus;

  @Column({ name: 'block_number', type: 'bigint', nullable: true })
  blockNumber!: string | null;

  @Column({ name: 'gas_used', type: 'numeric', precision: 78, scale: 0, nullable: true })
  gasUsed!: string | null;

  @Column({ name: 'contract_address', type: 'text', nullable: true })
  contractAddress!: string | null;

  /** Block timestamp (unix seconds) once mined. */
  @Column({ name: 'block_timestamp', type: 'bigint', nullable: true })
  blockTimestamp!: string | null;

  /** Index in its block (from the receipt) once mined. */
  @Column({ name: 'tx_index', type: 'integer', nullable: true })
  txIndex!: number | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'mined_at', type: 'timestamptz', nullable: true })
  minedAt!: Date | null;
}
