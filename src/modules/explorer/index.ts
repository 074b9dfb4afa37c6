/**
 * The explorer's public surface: what other folders may import. The composition root builds an
 * ExplorerService with the app's LiveFeed, the schema takes EXPLORER_RESOLVERS and the data source
 * EXPLORER_ENTITIES; the runtime's parts are offered to benchmarks and tests.
 */
// In this order: type-graphql orders the Query fields by when their resolvers are defined (these
// imports), not by the list below, and the schema (so SOFA's routes and the OpenAPI documents)
// keeps the order the fields had.
import { LiveBlocksResolver } from './queries/blocks/live-blocks.resolver';
import { NetworkStatusResolver } from './queries/network-status/network-status.resolver';
import { SearchResolver } from './queries/search/search.resolver';
import { TransactionsResolver } from './queries/transactions/transactions.resolver';
import { BlocksResolver } from './queries/blocks/blocks.resolver';
import { AddressesResolver } from './queries/addresses/addresses.resolver';
import { VerifiedAssetsResolver } from './queries/verified-assets/verified-assets.resolver';
import { TokensResolver } from '../tokens';

export { EXPLORER_ENTITIES } from './explorer.entities';
import type { ExplorerService } from './explorer.service';

export { ExplorerService } from './explorer.service';
export type { ExplorerConfig } from './runtime/explorer-runtime';
export { LiveFeed } from './runtime/live-feed';
export { BlockIndex, type LogPosition, type StoredContractLog } from './runtime/block-index';
export { IndexSignal } from './runtime/index-signal';
export { ChainReader } from './runtime/chain-reader';
export { hexToDecimal, hexToNumber, type RpcReceipt } from './views/sources';
export { ChainWatcher } from './runtime/chain-watcher';
export { ExplorerIndexer } from './runtime/explorer-indexer';

/** The explorer's resolvers, each built with its resource's service (for the schema's container). */
export function explorerResolverInstances(explorer: ExplorerService): Array<[unknown, object]> {
  return [
    [LiveBlocksResolver, new LiveBlocksResolver(explorer.blocks)],
    [NetworkStatusResolver, new NetworkStatusResolver(explorer.networkStatus)],
    [SearchResolver, new SearchResolver(explorer.search)],
    [TransactionsResolver, new TransactionsResolver(explorer.transactions)],
    [BlocksResolver, new BlocksResolver(explorer.blocks)],
    [AddressesResolver, new AddressesResolver(explorer.addresses)],
    [VerifiedAssetsResolver, new VerifiedAssetsResolver(explorer.verifiedAssets)],
    [TokensResolver, new TokensResolver(explorer.tokens)],
  ];
}

/** The explorer's resolvers: one per resource (blocks has two, see the imports). */
export const EXPLORER_RESOLVERS = [
  LiveBlocksResolver,
  NetworkStatusResolver,
  SearchResolver,
  TransactionsResolver,
  BlocksResolver,
  AddressesResolver,
  VerifiedAssetsResolver,
  TokensResolver,
] as const;
