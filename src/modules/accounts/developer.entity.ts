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

  /** Hex SHA-256 of the SPKI of the root CA this developer's logins chain to; null until the next login. */
  @Column({ name: 'trust_anchor', type: 'text', nullable: true })
  trustAnchor!: string | null;

  /** Tokens carry the generation they were issued in; logout moves it on, refusing every earlier token. */
  @Column({ name: 'token_generation', type: 'integer', default: 0 })
  tokenGeneration!: number;

  @Column({ name: 'tokens_revoked_before', type: 'timestamptz', nullable: true })
  tokensRevokedBefore!: Date | null;
}
