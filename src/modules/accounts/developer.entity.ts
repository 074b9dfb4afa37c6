import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A developer, created on first EDS login and keyed by the certificate identity. */
@Entity('developers')
export class DeveloperEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** `sn:<certificate serialNumber>` or `pk:<sha256 of the public key>`. */
  @Column({ name: 'identity_key', type: 'text', unique: true })
  identityKey!: string;

  @Column({ name: 'serial_number', type: 'text', nullable: true })
  serialNumber!: string | null;

  @Column({ name: 'display_name', type: 'text' })
  displayName!: string;

  @Column({ type: 'text' })
  subject!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'last_login_at', type: 'timestamptz' })
  lastLoginAt!: Date;
}
