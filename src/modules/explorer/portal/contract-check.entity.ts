import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';
import type { Network } from '../../../kernel/network';
import type { TokenStandard } from './contract-verification';

/** Whether a portal contract's code on chain is its compiled code, and what token it is. */
@Entity('explorer_contract_checks')
export class ContractCheckEntity {
  @PrimaryColumn({ name: 'contract_id', type: 'uuid' })
  contractId!: string;

  @Column({ type: 'text' })
  network!: Network;

  @Column({ type: 'text' })
  address!: string;

  @Column({ name: 'code_matches', type: 'boolean' })
  codeMatches!: boolean;

  @Column({ type: 'text', nullable: true })
  standard!: TokenStandard | null;

  @Column({ name: 'token_name', type: 'text', nullable: true })
  tokenName!: string | null;

  @Column({ name: 'token_symbol', type: 'text', nullable: true })
  tokenSymbol!: string | null;

  @Column({ name: 'token_decimals', type: 'integer', nullable: true })
  tokenDecimals!: number | null;

  /** When the code was compared: for a match, when the asset was verified. */
  @CreateDateColumn({ name: 'checked_at', type: 'timestamptz' })
  checkedAt!: Date;
}
