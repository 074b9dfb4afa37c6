import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { Network } from '../../kernel/network';
import type { CompilerInfo } from './compiler/compiler.types';

/** Lifecycle of a contract record (docs/api.md, "Contracts"). */
export type ContractStatus = 'compiled' | 'deploying' | 'deployed' | 'failed' | 'rejected';

/** A contract compiled (and possibly deployed) through the portal. */
@Entity('contracts')
@Index('contracts_owner_idx', ['ownerId', 'createdAt'])
@Index('contracts_address_idx', ['network', 'address'])
export class ContractEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  network!: Network;

  @Column({ name: 'chain_id', type: 'integer' })
  chainId!: number;

  @Column({ type: 'text' })
  status!: ContractStatus;

  /** EIP-55 address once deployed. */
  @Column({ type: 'text', nullable: true })
  address!: string | null;

  @Column({ name: 'deploy_tx_hash', type: 'text', nullable: true })
  deployTxHash!: string | null;

  @Column({ name: 'block_number', type: 'bigint', nullable: true })
  blockNumber!: string | null;

  @Column({ name: 'owner_id', type: 'uuid' })
  ownerId!: string;

  @Column({ name: 'project_id', type: 'uuid', nullable: true })
  projectId!: string | null;

  /** Name of the contract in the compiler output (`contractName`). */
  @Column({ name: 'contract_name', type: 'text' })
  contractName!: string;

  @Column({ name: 'source_file', type: 'text' })
  sourceFile!: string;

  @Column({ type: 'jsonb' })
  abi!: unknown[];

  /** Creation bytecode (0x hex) as compiled. */
  @Column({ type: 'text' })
  bytecode!: string;

  /** Runtime bytecode (0x hex) as compiled; compared with the chain to verify assets. */
  @Column({ name: 'deployed_bytecode', type: 'text' })
  deployedBytecode!: string;

  /** solc's evm.deployedBytecode.immutableReferences: byte ranges the constructor fills in. */
  @Column({ name: 'immutable_references', type: 'jsonb', default: () => "'{}'" })
  immutableReferences!: Record<string, Array<{ start: number; length: number }>>;

  @Column({ name: 'bytecode_hash', type: 'text' })
  bytecodeHash!: string;

  @Column({ name: 'source_hash', type: 'text' })
  sourceHash!: string;

  /** Submitted sources by file name. */
  @Column({ type: 'jsonb' })
  sources!: Record<string, string>;

  /** ABI-encoded constructor arguments (0x hex), appended to the bytecode at deployment. */
  @Column({ name: 'constructor_args', type: 'text', nullable: true })
  constructorArgs!: string | null;

  @Column({ type: 'jsonb' })
  compiler!: CompilerInfo;

  @Column({ name: 'middleware_registered', type: 'boolean', default: false })
  middlewareRegistered!: boolean;

  @Column({ name: 'registered_at', type: 'timestamptz', nullable: true })
  registeredAt!: Date | null;

  /** Why a deployment failed or was rejected. */
  @Column({ name: 'status_reason', type: 'text', nullable: true })
  statusReason!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'deployed_at', type: 'timestamptz', nullable: true })
  deployedAt!: Date | null;

  @Column({ name: 'approved_at', type: 'timestamptz', nullable: true })
  approvedAt!: Date | null;
}
