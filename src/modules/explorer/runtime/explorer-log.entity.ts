import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { Network } from '../../../kernel/network';

/**
 * An event log of an indexed block. Read by address and event through explorer_logs_event_idx
 * (network, address, topics[1], block_number, log_index), an expression index the migrations make.
 */
@Entity('explorer_logs')
export class ExplorerLogEntity {
  @PrimaryColumn({ type: 'text' })
  network!: Network;

  @PrimaryColumn({ name: 'block_number', type: 'bigint' })
  blockNumber!: string;

  /** Position of the log in its block. */
  @PrimaryColumn({ name: 'log_index', type: 'integer' })
  logIndex!: number;

  @Column({ name: 'transaction_hash', type: 'text' })
  transactionHash!: string;

  @Column({ type: 'text' })
  address!: string;

  @Column({ type: 'text', array: true })
  topics!: string[];

  @Column({ type: 'text' })
  data!: string;
}
