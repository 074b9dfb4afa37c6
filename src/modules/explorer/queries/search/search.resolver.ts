import { Arg, Query, Resolver, UseMiddleware } from 'type-graphql';
import { AnonymousReadsFromReplica } from '../replica-reads';
import { NetworkName } from '../../../../kernel/network-name';
import { NETWORK_ARG } from '../explorer-input';
import { SearchResults } from '../../views/search.types';
import type { SearchService } from './search.service';

// DATABASE_READ_URL: a request without credentials reads the index from the replica.
@UseMiddleware(AnonymousReadsFromReplica)
@Resolver()
export class SearchResolver {
  constructor(private readonly service: SearchService) {}

  @Query(() => SearchResults, {
    description:
      'Searches blocks (by number or hash), transactions (by hash), addresses, and portal contracts and verified assets (by name or symbol prefix).',
  })
  search(
    @Arg('q', { description: 'Block number, 0x hash, 0x address, or the start of a contract name or token symbol.' })
    q: string,
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
  ): Promise<SearchResults> {
    return this.service.search(q, network);
  }
}
