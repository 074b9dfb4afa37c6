import { GraphQLSafeInt } from 'graphql-scalars';
import { GraphQLJSONObject } from '../../kernel/json-scalar';
import { Field, ObjectType } from 'type-graphql';

/** One decoded event of a contract, as listed, pushed to subscribers and delivered to webhooks. */
export interface ContractEventItem {
  event: string;
  signature: string;
  args: Record<string, unknown>;
  /** Only on a log over the decoder's bounds (docs/api.md "Hostile chain data"): false, `args` empty, `data` the raw log data. */
  decoded?: false;
  data?: string;
  address: string;
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  logIndex: number;
  timestamp: number;
}

@ObjectType({ description: 'An event a contract emitted, decoded with its ABI.' })
export class ContractEvent implements ContractEventItem {
  @Field({ description: 'Event name, e.g. `Transfer`.' })
  event!: string;

  @Field({ description: 'Event signature, e.g. `Transfer(address,address,uint256)`.' })
  signature!: string;

  @Field(() => GraphQLJSONObject, {
    description:
      'Arguments keyed by the ABI parameter names (by position when unnamed): integers as decimal strings, ' +
      'addresses EIP-55, bytes as hex, tuples as objects; an indexed string, bytes, array or tuple is its keccak256 topic.',
  })
  args!: Record<string, unknown>;

  @Field(() => Boolean, {
    nullable: true,
    description:
      'False when the log data is over the decoding bounds (256 KiB, 100,000 elements): `args` is then empty and `data` holds the raw data. Null (left out on REST) for a decoded event.',
  })
  decoded?: false;

  @Field(() => String, {
    nullable: true,
    description: 'The raw log data (0x hex), only when `decoded` is false. Null (left out on REST) otherwise.',
  })
  data?: string;

  @Field({ description: 'Contract that emitted the event (EIP-55).' })
  address!: string;

  @Field(() => GraphQLSafeInt, { description: 'Block number.' })
  blockNumber!: number;

  @Field({ description: 'Block hash (0x hex).' })
  blockHash!: string;

  @Field({ description: 'Hash of the transaction that emitted the event (0x hex).' })
  transactionHash!: string;

  @Field(() => GraphQLSafeInt, { description: 'Position of the log in its block.' })
  logIndex!: number;

  @Field(() => GraphQLSafeInt, { description: 'Block time, unix seconds.' })
  timestamp!: number;
}

@ObjectType({ description: 'A page of contract events, oldest first.' })
export class ContractEventPage {
  @Field(() => [ContractEvent], { description: 'Events ordered by (blockNumber, logIndex).' })
  items!: ContractEvent[];

  @Field(() => String, { nullable: true, description: 'Cursor of the next page; null at the end.' })
  nextCursor!: string | null;
}
