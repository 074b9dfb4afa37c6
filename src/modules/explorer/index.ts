/**
 * The explorer's public surface: what other folders may import. The composition root builds an
 * ExplorerService with the app's LiveFeed; the manifest gives the schema its resolvers and the
 * data source its entities; the runtime's parts are offered to benchmarks and tests.
 */
import { domainManifest } from '../../kernel/domain-manifest';
import { TOKENS_MODULE } from '../tokens';
import { EXPLORER_ENTITIES } from './explorer.entities';
import { EXPLORER_ROUTES } from './explorer.routes';
import type { ExplorerService } from './explorer.service';
import { AddressesResolver } from './queries/addresses/addresses.resolver';
import { BlocksResolver } from './queries/blocks/blocks.resolver';
import { LiveBlocksResolver } from './queries/blocks/live-blocks.resolver';
import { NetworkStatusResolver } from './queries/network-status/network-status.resolver';
import { SearchResolver } from './queries/search/search.resolver';
import { ExplorerTransactionsResolver } from './queries/transactions/transactions.resolver';
import { VerifiedAssetsResolver } from './queries/verified-assets/verified-assets.resolver';

export { ExplorerService } from './explorer.service';
export type { ExplorerConfig } from './runtime/explorer-runtime';
export { LiveFeed } from './runtime/live-feed';
export { BlockIndex, type LogPosition, type StoredContractLog } from './runtime/block-index';
export { IndexSignal } from './runtime/index-signal';
export { ChainReader } from './runtime/chain-reader';
export { hexToDecimal, hexToNumber, type RpcReceipt } from './views/sources';
export { ChainWatcher } from './runtime/chain-watcher';
export { ExplorerIndexer } from './runtime/explorer-indexer';

/**
 * The explorer domain: one resolver per resource (blocks has two), each built with its resource's
 * service, and the tokens domain it hosts (its service builds the TokensService), whose fields
 * come after search's in the schema.
 */
export const EXPLORER_MODULE = domainManifest<{ explorer: ExplorerService }>({
  name: 'explorer',
  entities: [...EXPLORER_ENTITIES, ...TOKENS_MODULE.entities],
  resolvers: [
    { type: LiveBlocksResolver, build: (s) => new LiveBlocksResolver(s.explorer.blocks) },
    { type: NetworkStatusResolver, build: (s) => new NetworkStatusResolver(s.explorer.networkStatus) },
    { type: SearchResolver, build: (s) => new SearchResolver(s.explorer.search) },
    ...TOKENS_MODULE.resolvers,
    { type: ExplorerTransactionsResolver, build: (s) => new ExplorerTransactionsResolver(s.explorer.transactions) },
    { type: BlocksResolver, build: (s) => new BlocksResolver(s.explorer.blocks) },
    { type: AddressesResolver, build: (s) => new AddressesResolver(s.explorer.addresses) },
    { type: VerifiedAssetsResolver, build: (s) => new VerifiedAssetsResolver(s.explorer.verifiedAssets) },
  ],
  routes: [...EXPLORER_ROUTES, ...TOKENS_MODULE.routes],
});
