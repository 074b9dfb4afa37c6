import { Arg, Int, Query, Resolver, Root, Subscription, UseMiddleware } from 'type-graphql';
import { AnonymousReadsFromReplica } from '../replica-reads';
import { FEEDS } from '../../../../kernel/event-bus';
import { NetworkName } from '../../../../kernel/network-name';
import { NETWORK_ARG } from '../explorer-input';
import { BlockSummary, LiveBlocks } from '../../views/blocks.types';
import type { BlocksService } from './blocks.service';

/** The latest blocks and the push of new ones; `block` is in BlocksResolver. */
// DATABASE_READ_URL: a request without credentials reads the index from the replica.
@UseMiddleware(AnonymousReadsFromReplica)
@Resolver()
export class LiveBlocksResolver {
  constructor(private readonly blocks: BlocksService) {}

  @Query(() => LiveBlocks, { description: 'Latest blocks of a network, newest first.' })
  liveBlocks(
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
    @Arg('limit', () => Int, { nullable: true, description: 'Number of blocks, 1 to 100; default 10.' })
    limit: number | null,
  ): Promise<LiveBlocks> {
    return this.blocks.liveBlocks(network, limit);
  }

  @Subscription(() => BlockSummary, {
    name: 'liveBlocks',
    description:
      'Pushes every new block of a network, in order and without gaps, as the BlockSummary of the REST views. ' +
      'A subscriber that falls more than 256 blocks behind is ended with an error.',
    // Each subscriber gets the explorer's bounded feed of its network (src/schema/subscriptions.ts).
    topics: FEEDS.liveBlocks,
    topicId: ({ args }) => (args as { network?: NetworkName | null }).network,
  })
  liveBlocksFeed(
    @Root() block: BlockSummary,
    @Arg('network', () => NetworkName, NETWORK_ARG) _network: NetworkName | null,
  ): BlockSummary {
    return block;
  }
}
