import type { Network } from '../../../kernel/network';
import type { NetworkName } from '../../../kernel/network-name';
import { SearchResultType, type SearchResult } from './search.types';

/** A portal contract (or verified asset) as a search hit. */
export function contractSearchResult(c: { id: string; name: string; address: string; network: Network }): SearchResult {
  return {
    type: SearchResultType.contract,
    address: c.address,
    contractId: c.id,
    name: c.name,
    network: c.network as NetworkName,
  };
}
