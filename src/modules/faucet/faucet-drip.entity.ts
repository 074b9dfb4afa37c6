import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** One faucet payout; counted against the developer's daily allowance (UTC day). */
@Entity('faucet_drips')
export class FaucetDripEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'developer_id', type: 'uuid' })
  developerId!: string;

  /** UTC calendar day of the drip (YYYY-MM-DD). */
  @Column({ type: 'date' })
  day!: string;

  /** Null while the payout is being sent (the drip is reserved but not yet sent). */
  @Column({ name: 'tx_hash', type: 'text', nullable: true })
  txHash!: string | null;

  @Column({ name: 'amount_wei', type: 'numeric', precision: 78, scale: 0 })
  amountWei!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
