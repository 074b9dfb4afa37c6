import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Network } from '../../../kernel/network';

/** A block of the explorer's index. Hashes and addresses are lowercase hex. */
@Entity('explorer_blocks')
@Index('explorer_blocks_hash_idx', ['network', 'hash'], { unique: true })
export class ExplorerBlockEntity {
  @PrimaryColumn({ type: 'text' })
  network!: Network;

  /** bigint: pg returns it as a string. */
  @PrimaryColumn({ type: 'bigint' })
  number!: string;

  @Column({ type: 'text' })
  hash!: string;

  @Column({ name: 'parent_hash', type: 'text' })
  parentHash!: string;

  /** Unix seconds. */
  @Column({ type: 'bigint' })
  timestamp!: string;

  /** Coinbase: the QBFT proposer. */
  @Column({ type: 'text' })
  miner!: string;

  @Column({ name: 'transaction_count', type: 'integer' })
  transactionCount!: number;

  @Column({ name: 'gas_used', type: 'numeric' })
  gasUsed!: string;

  @Column({ name: 'gas_limit', type: 'numeric' })
  gasLimit!: string;

  @Column({ name: 'extra_data', type: 'text' })
  extraData!: string;
}
