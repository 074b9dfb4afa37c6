import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Network } from '../../../config';

/** An event log of an indexed block. */
@Entity('explorer_logs')
@Index('explorer_logs_address_idx', ['network', 'address', 'blockNumber', 'logIndex'])
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
