import type { DataSource } from 'typeorm';
import type { ReadRouting } from '../../database/read-routing';
import type { ChainRegistry } from '../../chain/chain-registry';
import type { Logger } from '../../logger';
import { AddressesService } from './queries/addresses/addresses.service';
import { BlocksService } from './queries/blocks/blocks.service';
import { NetworkStatusService } from './queries/network-status/network-status.service';
import { PortalContracts } from './queries/portal-contracts/portal-contracts';
import { SearchService } from './queries/search/search.service';
import { TransactionsService } from './queries/transactions/transactions.service';
import { VerifiedAssetsService } from './queries/verified-assets/verified-assets.service';
import { ExplorerRuntime, type ExplorerConfig } from './runtime/explorer-runtime';
import type { LiveFeed } from './runtime/live-feed';
import { TokensService } from '../tokens';

/**
 * The public explorer: its runtime (chain watchers, indexers, live feed) and one read-only query
 * service per resource. Reads come from the index when it has the data and from the node otherwise.
 */
export class ExplorerService {
  readonly runtime: ExplorerRuntime;
  readonly blocks: BlocksService;
  readonly transactions: TransactionsService;
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
    this.runtime = new ExplorerRuntime(ds, chains, config, liveFeed, logger, reads);
    const portal = new PortalContracts(ds, this.runtime.reader, logger.child({ component: 'explorer' }));
    this.blocks = new BlocksService(this.runtime);
    const reader = this.runtime.reader;
    const runtime = this.runtime;
    this.tokens = new TokensService(
      ds,
      (network, method, params, opts) => reader.call(network, method, params, opts),
      {
        lastBlock: async (network) => (await runtime.index.state(network))?.lastBlock ?? null,
        version: (network) => runtime.indexed.version(network),
        wait: (network, since, cancel) => runtime.waitForIndexed(network, since, cancel),
      },
      logger.child({ component: 'tokens' }),
    );
    this.transactions = new TransactionsService(this.runtime, portal, this.tokens);
    this.addresses = new AddressesService(this.runtime, portal);
    this.search = new SearchService(this.runtime, portal, this.tokens);
    this.networkStatus = new NetworkStatusService(this.runtime, chains);
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
