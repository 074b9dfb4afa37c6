import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Network } from '../../../kernel/network';

/** A mined transaction with what its receipt says. Hashes and addresses are lowercase hex. */
@Entity('explorer_transactions')
@Index('explorer_transactions_block_idx', ['network', 'blockNumber', 'transactionIndex'])
@Index('explorer_transactions_from_idx', ['network', 'fromAddress', 'blockNumber', 'transactionIndex'])
@Index('explorer_transactions_to_idx', ['network', 'toAddress', 'blockNumber', 'transactionIndex'])
@Index('explorer_transactions_created_idx', ['network', 'contractAddress'])
export class ExplorerTransactionEntity {
  @PrimaryColumn({ type: 'text' })
  network!: Network;

  @PrimaryColumn({ type: 'text' })
  hash!: string;

  @Column({ name: 'block_number', type: 'bigint' })
  blockNumber!: string;

  @Column({ name: 'transaction_index', type: 'integer' })
  transactionIndex!: number;

  /** Unix seconds of the block, kept here so activity lists need no join. */
  @Column({ type: 'bigint' })
  timestamp!: string;

  @Column({ name: 'from_address', type: 'text' })
  fromAddress!: string;

  /** Null for contract creations. */
  @Column({ name: 'to_address', type: 'text', nullable: true })
  toAddress!: string | null;

  /** The contract a creation made. */
  @Column({ name: 'contract_address', type: 'text', nullable: true })
  contractAddress!: string | null;

  @Column({ type: 'numeric' })
  value!: string;

  @Column({ type: 'bigint' })
  nonce!: string;

  @Column({ name: 'gas_limit', type: 'numeric' })
  gasLimit!: string;

  /** Effective gas price paid (receipt). */
  @Column({ name: 'gas_price', type: 'numeric' })
  gasPrice!: string;

  @Column({ name: 'gas_used', type: 'numeric' })
  gasUsed!: string;

  /** 1 success, 0 reverted. */
  @Column({ type: 'smallint' })
  status!: number;

  /** First 4 bytes of the input, when it has them: names the method without reading the input. */
  @Column({ name: 'method_id', type: 'text', nullable: true })
  methodId!: string | null;

  @Column({ type: 'text' })
  input!: string;
}
