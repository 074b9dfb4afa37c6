import { GraphQLSafeInt } from 'graphql-scalars';
import { Field, Float, Int, ObjectType } from 'type-graphql';
import { NetworkName } from '../../../kernel/network-name';

@ObjectType({ description: 'The latest block known.' })
export class LastBlock {
  @Field(() => GraphQLSafeInt, { description: 'Block number.' })
  number!: number;

  @Field({ description: 'Block hash.' })
  hash!: string;

  @Field(() => GraphQLSafeInt, { description: 'Block time, unix seconds.' })
  timestamp!: number;
}

@ObjectType({ description: 'Health of the RPC node of a network.' })
export class RpcHealth {
  @Field({ description: 'Whether the node answered within 2 seconds.' })
  healthy!: boolean;

  @Field(() => Int, { nullable: true, description: 'Round-trip time of eth_blockNumber in ms; null when down.' })
  latencyMs!: number | null;

  @Field(() => String, { nullable: true, description: 'Short reason when unhealthy.' })
  error!: string | null;
}

@ObjectType({ description: "Progress of the service's block index." })
export class IndexerProgress {
  @Field(() => GraphQLSafeInt, { nullable: true, description: 'Last block in the index; null before the first.' })
  lastIndexedBlock!: number | null;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description: 'Blocks the index is behind the latest known block; null when unknown.',
  })
  lagBlocks!: number | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Why indexing of this network stopped (the node serves another chain than the one indexed); null while it runs. ' +
      'The README tells how to re-index.',
  })
  haltedReason!: string | null;
}

@ObjectType({ description: 'Summary of a network: last block, validators, block time, RPC health, index.' })
export class NetworkStatus {
  @Field(() => NetworkName, { description: 'The network.' })
  network!: NetworkName;

  @Field(() => Int, { description: 'Chain id of the network.' })
  chainId!: number;

  @Field({ description: 'Consensus protocol: `qbft`.' })
  consensus!: string;

  @Field(() => LastBlock, { nullable: true, description: 'Latest block (the last known one while the node is down).' })
  lastBlock!: LastBlock | null;

  @Field(() => [String], { description: 'Validator addresses (EIP-55).' })
  validators!: string[];

  @Field(() => Int, { description: 'Number of validators.' })
  validatorCount!: number;

  @Field(() => Float, { nullable: true, description: 'Average block time over the last 100 blocks, in seconds.' })
  averageBlockTimeSeconds!: number | null;

  @Field(() => RpcHealth, { description: 'RPC node health.' })
  rpc!: RpcHealth;

  @Field(() => IndexerProgress, { description: 'Block index progress.' })
  indexer!: IndexerProgress;
}
