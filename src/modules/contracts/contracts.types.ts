import { IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { GraphQLSafeInt } from 'graphql-scalars';
import { GraphQLJSON, GraphQLJSONObject } from '../../kernel/json-scalar';
import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { NetworkName } from '../../kernel/network-name';

@ObjectType({ description: 'Optimizer settings.' })
export class OptimizerSettings {
  @Field({ description: 'Always true.' })
  enabled!: boolean;

  @Field(() => Int, { description: 'Optimizer runs (200).' })
  runs!: number;
}

@ObjectType({ description: 'Compiler used: solc 0.8.20, EVM version paris.' })
export class CompilerSettings {
  @Field({ description: 'solc version, e.g. 0.8.20+commit.a1b79de6.' })
  version!: string;

  @Field({ description: 'EVM version: paris (no PUSH0).' })
  evmVersion!: string;

  @Field(() => OptimizerSettings, { description: 'Optimizer settings.' })
  optimizer!: OptimizerSettings;
}

@ObjectType({ description: 'One compiled contract.' })
export class CompiledContract {
  @Field({ description: 'Contract name.' })
  name!: string;

  @Field({ description: 'File that defines it.' })
  sourceFile!: string;

  @Field(() => [GraphQLJSONObject], { description: 'ABI (JSON).' })
  abi!: unknown[];

  @Field({ description: 'Creation bytecode, 0x hex.' })
  bytecode!: string;

  @Field({ description: 'Runtime bytecode, 0x hex.' })
  deployedBytecode!: string;
}

@ObjectType({ description: 'A compiler message with its location.' })
export class CompilerMessage {
  @Field({ description: 'error, warning or info.' })
  severity!: string;

  @Field({ description: 'Short message.' })
  message!: string;

  @Field({ description: 'Message with the source excerpt.' })
  formattedMessage!: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: '{file, start, end} in the submitted sources.' })
  sourceLocation!: { file: string; start: number; end: number } | null;
}

@ObjectType({ description: 'Result of a compilation.' })
export class CompileOutput {
  @Field(() => CompilerSettings, { description: 'Compiler used.' })
  compiler!: CompilerSettings;

  @Field(() => [CompiledContract], { description: 'Deployable contracts of the submitted files.' })
  contracts!: CompiledContract[];

  @Field(() => [CompilerMessage], { description: 'Compiler warnings.' })
  warnings!: CompilerMessage[];
}

@InputType({ description: 'Solidity to compile: one `source`, or several files in `sources`.' })
export class CompileContractInput {
  @Field({ nullable: true, description: 'A single Solidity source (becomes Contract.sol).' })
  @IsOptional()
  @IsString()
  source?: string;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Files by name, e.g. {"Token.sol": "..."}.' })
  @IsOptional()
  sources?: Record<string, unknown>;

  @Field({ nullable: true, description: 'Only this contract (required to deploy when the input has several).' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  contractName?: string;
}

@InputType({ description: 'Compile and deploy: testnet deploys at once, mainnet waits for approval.' })
export class DeployContractInput extends CompileContractInput {
  @Field(() => NetworkName, { nullable: true, defaultValue: NetworkName.testnet, description: 'Default testnet.' })
  @IsOptional()
  @IsIn(['testnet', 'mainnet'])
  network?: NetworkName;

  @Field(() => [GraphQLJSON], {
    nullable: true,
    description: 'Constructor arguments, positional (big integers as strings).',
  })
  @IsOptional()
  constructorArgs?: unknown[];

  @Field(() => ID, { nullable: true, description: 'Project of the caller to file the contract under.' })
  @IsOptional()
  @IsUUID('all', { message: 'projectId must be a UUID' })
  projectId?: string;

  @Field({ nullable: true, description: 'Display name; default the contract name.' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  name?: string;
}

@ObjectType({ description: 'Middleware (gateway) registration state.' })
export class MiddlewareState {
  @Field({ description: 'True once registered.' })
  registered!: boolean;

  @Field(() => Date, { nullable: true, description: 'When it was registered.' })
  registeredAt!: Date | null;
}

@ObjectType({ description: 'A contract compiled, and possibly deployed, through the portal.' })
export class Contract {
  @Field(() => ID, { description: 'Contract id (UUID).' })
  id!: string;

  @Field({ description: 'Display name.' })
  name!: string;

  @Field(() => NetworkName, { description: 'Network.' })
  network!: string;

  @Field(() => GraphQLSafeInt, { description: 'Chain id of the network.' })
  chainId!: number;

  @Field({ description: 'compiled, deploying, deployed, failed or rejected.' })
  status!: string;

  @Field(() => String, { nullable: true, description: 'Why the deployment failed or was rejected.' })
  statusReason!: string | null;

  @Field(() => String, { nullable: true, description: 'Address once deployed (EIP-55).' })
  address!: string | null;

  @Field(() => String, { nullable: true, description: 'Hash of the deployment transaction.' })
  deployTxHash!: string | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Block of the deployment.' })
  blockNumber!: number | null;

  @Field(() => ID, { description: 'Owner developer id.' })
  ownerId!: string;

  @Field(() => ID, { nullable: true, description: 'Project id, if filed under one.' })
  projectId!: string | null;

  @Field(() => [GraphQLJSONObject], { description: 'ABI (JSON).' })
  abi!: unknown[];

  @Field({ description: 'keccak256 of the creation bytecode.' })
  bytecodeHash!: string;

  @Field({ description: 'SHA-256 of the normalised sources.' })
  sourceHash!: string;

  @Field(() => CompilerSettings, { description: 'Compiler used.' })
  compiler!: CompilerSettings;

  @Field(() => MiddlewareState, { description: 'Gateway registration.' })
  middleware!: MiddlewareState;

  @Field({ description: 'When the record was created.' })
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When the deployment was mined.' })
  deployedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When a mainnet deployment was approved.' })
  approvedAt!: Date | null;
}

@ObjectType({ description: 'A page of contracts.' })
export class ContractPage {
  @Field(() => [Contract], { description: 'Contracts, newest first.' })
  items!: Contract[];

  @Field(() => String, { nullable: true, description: 'Pass as `cursor` for the next page; null at the end.' })
  nextCursor!: string | null;
}

@ObjectType({ description: 'Gateway endpoints of a contract.' })
export class GatewayEndpoints {
  @Field({ description: 'URL template of read calls (POST, API key with scope read).' })
  query!: string;

  @Field({ description: 'URL template of write calls (POST, API key with scope write).' })
  invoke!: string;
}

@ObjectType({ description: 'Registration of a contract in the gateway (middleware).' })
export class MiddlewareRegistration {
  @Field(() => ID, { description: 'Contract id.' })
  contractId!: string;

  @Field({ description: 'Always true.' })
  registered!: boolean;

  @Field({ description: 'When it was first registered.' })
  registeredAt!: Date;

  @Field(() => GatewayEndpoints, { description: 'Gateway endpoints.' })
  endpoints!: GatewayEndpoints;

  @Field({ description: 'Swagger 2.0 description of the contract.' })
  swaggerUrl!: string;

  @Field({ description: 'OpenAPI 3.0.3 description of the contract.' })
  openapiUrl!: string;
}
