import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { Network } from '../../../kernel/network';

/** How far the explorer's index of a network goes; written with every batch of blocks. */
@Entity('explorer_index_state')
export class IndexStateEntity {
  @PrimaryColumn({ type: 'text' })
  network!: Network;

  /** First block of the index: 0, or INDEXER_START_BLOCK when the index was started there. */
  @Column({ name: 'first_block', type: 'bigint' })
  firstBlock!: string;

  @Column({ name: 'last_block', type: 'bigint' })
  lastBlock!: string;

  @Column({ name: 'last_hash', type: 'text' })
  lastHash!: string;

  /** Set when the indexer found a block whose parent is not the stored block; indexing stops. */
  @Column({ name: 'halted_reason', type: 'text', nullable: true })
  haltedReason!: string | null;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
