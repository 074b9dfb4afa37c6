import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, Int, ObjectType } from 'type-graphql';
import { NetworkName } from '../../../kernel/network-name';

@ObjectType({ description: 'A block header summary; the same object is pushed by the liveBlocks subscription.' })
export class BlockSummary {
  @Field(() => GraphQLSafeInt, { description: 'Block number.' })
  number!: number;

  @Field({ description: 'Block hash (0x hex).' })
  hash!: string;

  @Field({ description: 'Hash of the parent block (0x hex).' })
  parentHash!: string;

  @Field(() => GraphQLSafeInt, { description: 'Block time, unix seconds.' })
  timestamp!: number;

  @Field({ description: 'QBFT proposer: the header coinbase (on a dev chain, its miner), EIP-55.' })
  proposer!: string;

  @Field(() => GraphQLSafeInt, { description: 'Number of transactions in the block.' })
  transactionCount!: number;

  @Field({ description: 'Gas used by the block (decimal string).' })
  gasUsed!: string;

  @Field({ description: 'Gas limit of the block (decimal string).' })
  gasLimit!: string;
}

@ObjectType({ description: 'Latest blocks of a network, newest first.' })
export class LiveBlocks {
  @Field(() => NetworkName, { description: 'Network the blocks are from.' })
  network!: NetworkName;

  @Field(() => Int, { description: 'Chain id of the network.' })
  chainId!: number;

  @Field(() => [BlockSummary], { description: 'Blocks, newest first.' })
  blocks!: BlockSummary[];
}

@ObjectType({ description: 'A block: its summary, transaction hashes and extraData.' })
export class Block extends BlockSummary {
  @Field(() => [String], { description: 'Hashes of the transactions of the block, in order.' })
  transactions!: string[];

  @Field({ description: 'Raw extraData of the header (0x hex); on QBFT it names validators, vote, round, seals.' })
  extraData!: string;
}

@ObjectType({ description: 'Result of a block lookup.' })
export class BlockLookup {
  @Field({ description: 'Whether the block exists.' })
  found!: boolean;

  @Field(() => Block, { nullable: true, description: 'The block, when found.' })
  block!: Block | null;
}
