import type { NetworkName } from '../../../../kernel/network-name';
import type { BlockIndex } from '../../runtime/block-index';
import { NODE_QUICK, type ChainReader } from '../../runtime/chain-reader';
import { contractSearchResult } from '../../views/search.views';
import { hexToNumber } from '../../views/sources';
import { explorerNetwork, parseSearchQuery } from '../explorer-input';
import type { PortalContracts } from '../../portal/portal-contracts';
import { SearchResultType, type SearchResult, type SearchResults } from '../../views/search.types';
import type { TokensService } from '../../../tokens';

const SEARCH_LIMIT = 25;

/** Search: blocks by number or hash, transactions by hash, addresses, portal contracts and verified assets by name prefix. */
export class SearchService {
  constructor(
    private readonly reader: ChainReader,
    private readonly index: BlockIndex,
    private readonly portal: PortalContracts,
    private readonly tokens: TokensService,
  ) {}

  async search(qArg: string, networkArg: NetworkName | null | undefined): Promise<SearchResults> {
    const { reader, index } = this;
    const network = explorerNetwork(networkArg);
    const q = parseSearchQuery(qArg);
    const results: SearchResult[] = [];
    const quietly = <T>(p: Promise<T>): Promise<T | null> => p.catch(() => null);

    if (q.kind === 'number') {
      const stored = await index.blockByNumber(network, q.number);
      const block = stored ?? (await quietly(reader.blocks(network, [q.number], false)))?.[0] ?? null;
      if (block) results.push({ type: SearchResultType.block, number: q.number, hash: block.hash.toLowerCase() });
    } else if (q.kind === 'hash') {
      const [storedTx, storedBlock] = await Promise.all([
        index.transaction(network, q.hash),
        index.blockByHash(network, q.hash),
      ]);
      const [nodeTx, nodeBlock] = await Promise.all([
        storedTx ? null : quietly(reader.transaction(network, q.hash)),
        storedBlock ? null : quietly(reader.blockByHash(network, q.hash)),
      ]);
      if (storedTx) {
        results.push({ type: SearchResultType.transaction, hash: q.hash, blockNumber: storedTx.blockNumber });
      } else if (nodeTx) {
        results.push({
          type: SearchResultType.transaction,
          hash: q.hash,
          blockNumber: nodeTx.blockNumber ? hexToNumber(nodeTx.blockNumber) : null,
        });
      }
      const block = storedBlock ?? (nodeBlock ? { number: hexToNumber(nodeBlock.number) } : null);
      if (block) results.push({ type: SearchResultType.block, number: block.number, hash: q.hash });
    } else if (q.kind === 'address') {
      const [code, created, contracts] = await Promise.all([
        quietly(reader.call<string>(network, 'eth_getCode', [q.address, 'latest'], NODE_QUICK)),
        index.isCreatedContract(network, q.address),
        this.portal.at(network, [q.address]),
      ]);
      results.push({
        type: SearchResultType.address,
        address: q.address,
        isContract: code !== null ? code.length > 2 : created,
      });
      const contract = contracts.get(q.address.toLowerCase());
      if (contract) results.push(contractSearchResult(contract));
    } else {
      const [byName, assets, tokens] = await Promise.all([
        this.portal.byNamePrefix(network, q.text, SEARCH_LIMIT),
        network === 'mainnet' ? this.portal.assetsByPrefix(q.text, SEARCH_LIMIT) : Promise.resolve([]),
        this.tokens.search(network, q.text),
      ]);
      const seen = new Set<string>();
      for (const c of [...byName, ...assets]) {
        if (seen.has(c.id) || results.length >= SEARCH_LIMIT) continue;
        seen.add(c.id);
        results.push(contractSearchResult(c));
      }
      // Tokens by name or symbol prefix (docs/api.md, "Tokens").
      for (const t of tokens) {
        if (results.length >= SEARCH_LIMIT) break;
        results.push({ type: SearchResultType.token, ...t, network: network as NetworkName });
      }
    }
    return { query: qArg.trim(), network: network as NetworkName, results };
  }
}
