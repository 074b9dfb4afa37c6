import { GraphQLJSON, GraphQLJSONObject } from '../../kernel/json-scalar';
import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({ description: 'The compilers and EVM versions verification accepts.' })
export class VerificationConfig {
  @Field(() => [String], { description: 'solc versions as Etherscan names them, e.g. v0.8.20+commit.a1b79de6.' })
  compilerVersions!: string[];

  @Field(() => [String], { description: 'EVM versions a verification may state (or `default`).' })
  evmVersions!: string[];
}

@ObjectType({ description: 'Optimizer settings of a verified contract.' })
export class VerifiedOptimizer {
  @Field({ description: 'Whether the optimizer ran.' })
  enabled!: boolean;

  @Field(() => Int, { description: 'Optimizer runs.' })
  runs!: number;
}

@ObjectType({ description: 'A contract whose sources were verified by recompiling them.' })
export class VerifiedContractView {
  @Field({ description: 'The address (EIP-55).' })
  address!: string;

  @Field({ description: 'Network of the contract: testnet or mainnet.' })
  network!: string;

  @Field({ description: 'Contract name.' })
  name!: string;

  @Field({ description: '`full` when the metadata hash matches too, `partial` when only it differs.' })
  match!: string;

  @Field({ description: 'solc version, e.g. v0.8.20+commit.a1b79de6.' })
  compilerVersion!: string;

  @Field({ description: 'EVM version stated (`default`: the compiler’s own).' })
  evmVersion!: string;

  @Field(() => VerifiedOptimizer, { description: 'Optimizer settings.' })
  optimizer!: VerifiedOptimizer;

  @Field(() => GraphQLJSONObject, { description: 'Source files by path.' })
  sources!: Record<string, string>;

  @Field(() => GraphQLJSON, { description: 'The contract’s ABI.' })
  abi!: unknown[];

  @Field({ description: 'ABI-encoded constructor arguments, hex without 0x (empty when none).' })
  constructorArgs!: string;

  @Field(() => String, { nullable: true, description: 'Hash of the creation transaction, when known.' })
  creationTxHash!: string | null;

  @Field(() => String, { nullable: true, description: 'Sender of the creation transaction, when known.' })
  creator!: string | null;

  @Field({ description: 'When it was verified (ISO-8601 UTC).' })
  verifiedAt!: Date;
}

@ObjectType({ description: 'The verified contract at an address, if any.' })
export class AddressContractLookup {
  @Field({ description: 'Whether a verified contract is at the address.' })
  found!: boolean;

  @Field(() => VerifiedContractView, { nullable: true, description: 'The verified contract.' })
  contract!: VerifiedContractView | null;
}
