import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { NetworkName } from '../../../../schema/network';
import type { RequestContext } from '../../../../server/context';
import { NETWORK_ARG } from '../explorer-input';
import { BlockLookup } from './blocks.types';

/** One block; the latest blocks and the live feed are in LiveBlocksResolver. */
@Resolver()
export class BlocksResolver {
  @Query(() => BlockLookup, { description: 'A block by number, hash or `latest`.' })
  block(
    @Arg('id', { description: 'Block number (decimal), block hash (0x and 64 hex characters) or `latest`.' })
    id: string,
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
    @Ctx() ctx: RequestContext,
  ): Promise<BlockLookup> {
    return ctx.services.explorer.blocks.block(id, network);
  }
}
