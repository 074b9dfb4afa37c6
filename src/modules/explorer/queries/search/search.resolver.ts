import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { NetworkName } from '../../../../schema/network';
import type { RequestContext } from '../../../../server/context';
import { NETWORK_ARG } from '../explorer-input';
import { SearchResults } from './search.types';

@Resolver()
export class SearchResolver {
  @Query(() => SearchResults, {
    description:
      'Searches blocks (by number or hash), transactions (by hash), addresses, and portal contracts and verified assets (by name or symbol prefix).',
  })
  search(
    @Arg('q', { description: 'Block number, 0x hash, 0x address, or the start of a contract name or token symbol.' })
    q: string,
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
    @Ctx() ctx: RequestContext,
  ): Promise<SearchResults> {
    return ctx.services.explorer.search.search(q, network);
  }
}
