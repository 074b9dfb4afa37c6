import { GraphQLSafeInt } from 'graphql-scalars';
import { GraphQLJSON, GraphQLJSONObject } from '../../../kernel/json-scalar';
import { Field, ObjectType, registerEnumType } from 'type-graphql';
import { TokenTransfer } from '../../tokens';

/** Outcome of a transaction. */
export enum TransactionStatus {
  success = 'success',
  reverted = 'reverted',
  pending = 'pending',
}
registerEnumType(TransactionStatus, {
  name: 'TransactionStatus',
  description: 'Outcome of a transaction.',
  valuesConfig: {
    success: { description: 'Mined and executed.' },
    reverted: { description: 'Mined, but execution reverted (gas was still paid).' },
    pending: { description: 'Known to the node but not in a block yet.' },
  },
});

@ObjectType({ description: 'An event log decoded with an ABI.' })
export class DecodedLog {
  @Field({ description: 'Event name, e.g. `Transfer`.' })
  name!: string;

  @Field({ description: 'Event name again, as docs/api.md "Verification" names it (`event`).' })
  event!: string;

  @Field({ description: 'Event signature, e.g. `Transfer(address,address,uint256)`.' })
  signature!: string;

  @Field(() => GraphQLJSONObject, {
    description:
      'Arguments keyed by parameter name (by position when unnamed): integers as decimal strings, addresses EIP-55, ' +
      'bytes as hex, tuples as objects; an indexed string, bytes, array or tuple is its keccak256 topic.',
  })
  args!: Record<string, unknown>;
}

@ObjectType({ description: 'An event log emitted by a transaction.' })
export class TransactionLog {
  @Field({ description: 'Contract that emitted the log (EIP-55).' })
  address!: string;

  @Field(() => [String], { description: 'Indexed topics (0x hex); the first is the event signature hash.' })
  topics!: string[];

  @Field({ description: 'Non-indexed data (0x hex).' })
  data!: string;

  @Field(() => GraphQLSafeInt, { description: 'Position of the log in its block.' })
  logIndex!: number;

  @Field(() => DecodedLog, {
    nullable: true,
    description:
      'The event, decoded with the ABI of the portal or verified contract at `address`, else when it is a standard ERC-20, ' +
      'ERC-721 or ERC-1155 Transfer/Approval event; null when unknown.',
  })
  decoded!: DecodedLog | null;
}

@ObjectType({ description: 'One decoded argument of a method call.' })
export class MethodArgument {
  @Field({ description: 'Parameter name in the ABI (may be empty).' })
  name!: string;

  @Field({ description: 'ABI type, e.g. `uint256`, `address`, `(address,uint64)`.' })
  type!: string;

  @Field(() => GraphQLJSON, {
    nullable: true,
    description: 'Value as JSON: integers as decimal strings, addresses EIP-55, bytes as hex, tuples as objects.',
  })
  value!: unknown;
}

@ObjectType({ description: 'A method call decoded with the ABI of a portal contract.' })
export class DecodedMethod {
  @Field({ description: 'Function name.' })
  name!: string;

  @Field({ description: 'Function signature, e.g. `transfer(address,uint256)`.' })
  signature!: string;

  @Field(() => [MethodArgument], { description: 'Arguments, in order.' })
  args!: MethodArgument[];
}

@ObjectType({ description: 'A transaction with its receipt.' })
export class Transaction {
  @Field({ description: 'Transaction hash (0x hex).' })
  hash!: string;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Block number; null while pending.' })
  blockNumber!: number | null;

  @Field(() => String, { nullable: true, description: 'Block hash; null while pending.' })
  blockHash!: string | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Position in the block; null while pending.' })
  transactionIndex!: number | null;

  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Block time, unix seconds; null while pending.' })
  timestamp!: number | null;

  @Field({ description: 'Sender (EIP-55).' })
  from!: string;

  @Field(() => String, { nullable: true, description: 'Recipient (EIP-55); null for a contract creation.' })
  to!: string | null;

  @Field(() => String, { nullable: true, description: 'Contract created by the transaction (EIP-55), if any.' })
  contractAddress!: string | null;

  @Field({ description: 'Value sent, in wei (decimal string).' })
  value!: string;

  @Field(() => GraphQLSafeInt, { description: 'Sender nonce.' })
  nonce!: number;

  @Field({ description: 'Gas limit (decimal string).' })
  gasLimit!: string;

  @Field({ description: 'Gas price paid, in wei (decimal string); the effective price once mined.' })
  gasPrice!: string;

  @Field(() => String, { nullable: true, description: 'Gas used (decimal string); null while pending.' })
  gasUsed!: string | null;

  @Field(() => TransactionStatus, { description: '`success`, `reverted` or `pending`.' })
  status!: TransactionStatus;

  @Field({ description: 'Call data (0x hex).' })
  input!: string;

  @Field(() => [TransactionLog], { description: 'Event logs, in order.' })
  logs!: TransactionLog[];

  @Field(() => DecodedMethod, {
    nullable: true,
    description:
      'The decoded call, when `to` is a contract the portal knows or a verified one and the input matches its ABI.',
  })
  method!: DecodedMethod | null;

  @Field(() => [TokenTransfer], {
    description: 'Token transfers of the transaction, from the index, in log order (docs/api.md, "Tokens").',
  })
  tokenTransfers!: TokenTransfer[];
}

@ObjectType({ description: 'Result of a transaction lookup.' })
export class TransactionLookup {
  @Field({ description: 'Whether the transaction exists.' })
  found!: boolean;

  @Field(() => Transaction, { nullable: true, description: 'The transaction, when found.' })
  transaction!: Transaction | null;
}
