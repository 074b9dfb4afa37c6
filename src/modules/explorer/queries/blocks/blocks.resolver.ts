import { Arg, Query, Resolver, UseMiddleware } from 'type-graphql';
import { AnonymousReadsFromReplica } from '../replica-reads';
import { NetworkName } from '../../../../kernel/network-name';
import { NETWORK_ARG } from '../explorer-input';
import { BlockLookup } from '../../views/blocks.types';
import type { BlocksService } from './blocks.service';

/** One block; the latest blocks and the live feed are in LiveBlocksResolver. */
// DATABASE_READ_URL: a request without credentials reads the index from the replica.
@UseMiddleware(AnonymousReadsFromReplica)
@Resolver()
export class BlocksResolver {
  constructor(private readonly blocks: BlocksService) {}

  @Query(() => BlockLookup, { description: 'A block by number, hash or `latest`.' })
  block(
    @Arg('id', { description: 'Block number (decimal), block hash (0x and 64 hex characters) or `latest`.' })
    id: string,
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
  ): Promise<BlockLookup> {
    return this.blocks.block(id, network);
  }
}
