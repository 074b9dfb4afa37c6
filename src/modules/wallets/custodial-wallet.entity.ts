import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A developer's custodial wallet: one address used on both networks. */
@Entity('custodial_wallets')
export class CustodialWalletEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'developer_id', type: 'uuid', unique: true })
  developerId!: string;

  /** EIP-55 checksummed address. */
  @Column({ type: 'text', unique: true })
  address!: string;

  /** AES-256-GCM sealed private key (see wallet-key-cipher.ts); never leaves the signer. */
  @Column({ name: 'encrypted_key', type: 'bytea', select: false })
  encryptedKey!: Buffer;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
