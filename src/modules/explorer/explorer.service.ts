import type { DataSource } from 'typeorm';
import type { ReadRouting } from '../../database/read-routing';
import type { ChainRegistry } from '../../chain/chain-registry';
import type { Logger } from '../../kernel/logger';
import { PortalContracts } from './portal/portal-contracts';
import { AddressesService } from './queries/addresses/addresses.service';
import { BlocksService } from './queries/blocks/blocks.service';
import { NetworkStatusService } from './queries/network-status/network-status.service';
import { SearchService } from './queries/search/search.service';
import { ExplorerTransactionsService } from './queries/transactions/transactions.service';
import { VerifiedAssetsService } from './queries/verified-assets/verified-assets.service';
import { BlockIndex } from './runtime/block-index';
import { ChainReader } from './runtime/chain-reader';
import { ExplorerRuntime, type ExplorerConfig } from './runtime/explorer-runtime';
import type { LiveFeed } from './runtime/live-feed';
import { TokensService } from '../tokens';

/**
 * The public explorer: its runtime (chain watchers, indexers, live feed) and one read-only query
 * service per resource. Reads come from the index when it has the data and from the node otherwise.
 */
export class ExplorerService {
  /** The explorer's reads of the nodes (also the verification domain's). */
  readonly reader: ChainReader;
  /** The block index the indexers write and the queries read. */
  readonly index: BlockIndex;
  readonly runtime: ExplorerRuntime;
  readonly blocks: BlocksService;
  readonly transactions: ExplorerTransactionsService;
  readonly addresses: AddressesService;
  readonly search: SearchService;
  readonly networkStatus: NetworkStatusService;
  readonly verifiedAssets: VerifiedAssetsService;
  readonly tokens: TokensService;

  /** `reads`: DATABASE_READ_URL's routing of the index reads (docs/api.md, "Operations"); none: the primary. */
  constructor(
    ds: DataSource,
    chains: ChainRegistry,
    config: ExplorerConfig,
    liveFeed: LiveFeed,
    logger: Logger,
    reads?: ReadRouting,
  ) {
    const reader = new ChainReader(chains);
    const index = new BlockIndex(ds, reads && (() => reads.forRead()));
    const runtime = new ExplorerRuntime(ds, reader, index, config, liveFeed, logger);
    this.reader = reader;
    this.index = index;
    this.runtime = runtime;
    const portal = new PortalContracts(ds, reader, logger.child({ component: 'explorer' }));
    this.blocks = new BlocksService(reader, index, runtime);
    this.tokens = new TokensService(
      ds,
      (network, method, params, opts) => reader.call(network, method, params, opts),
      {
        lastBlock: async (network) => (await index.state(network))?.lastBlock ?? null,
        version: (network) => runtime.indexedVersion(network),
        wait: (network, since, cancel) => runtime.waitForIndexed(network, since, cancel),
      },
      logger.child({ component: 'tokens' }),
    );
    this.transactions = new ExplorerTransactionsService(reader, index, portal, this.tokens);
    this.addresses = new AddressesService(reader, index, portal);
    this.search = new SearchService(reader, index, portal, this.tokens);
    this.networkStatus = new NetworkStatusService(reader, index, runtime, chains);
    this.verifiedAssets = new VerifiedAssetsService(portal);
  }

  /** Starts the watchers and, when enabled, the indexers; all in the background. */
  start(): void {
    this.runtime.start();
  }

  stop(): Promise<void> {
    return this.runtime.stop();
  }
}
