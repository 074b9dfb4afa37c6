import type { DataSource } from 'typeorm';
import type { ChainRegistry } from '../../../chain/chain-registry';
import { NETWORKS, type Network } from '../../../config';
import type { Logger } from '../../../logger';
import type { BlockSummary } from '../queries/blocks/blocks.types';
import { readFromPrimary, type ReadRouting } from '../../../database/read-routing';
import { BlockIndex } from './block-index';
import { ChainReader } from './chain-reader';
import { ChainWatcher } from './chain-watcher';
import { ExplorerIndexer } from './explorer-indexer';
import { IndexSignal } from './index-signal';
import type { LiveFeed } from './live-feed';

/** How often an instance that does not index reads the index progress, while someone waits on it. */
const INDEX_POLL_MS = 300;

export interface ExplorerConfig {
  /** Whether this instance may index (INDEXER_ENABLED); it indexes a network only while it holds its lock. */
  indexerEnabled: boolean;
  /** Where a new index starts (INDEXER_START_BLOCK). */
  indexerStartBlock: number;
  /** Networks served by a dev chain this service started: their index follows the chain if it loses blocks. */
  localNetworks?: readonly Network[];
}

/**
 * What the explorer runs in the background: a chain watcher per network (live blocks, the latest
 * block) publishing to the app's live feed, and, when enabled, an indexer per network writing the
 * block index while this instance holds the network's lock. The queries read through it.
 */
export class ExplorerRuntime {
  readonly reader: ChainReader;
  readonly index: BlockIndex;
  readonly watchers: Record<Network, ChainWatcher>;
  readonly indexers: Partial<Record<Network, ExplorerIndexer>> = {};
  /** Notified when this instance's indexer commits blocks. */
  readonly indexed = new IndexSignal();
  private readonly log: Logger;
  /** Last block of each network's index as the poll below last saw it. */
  private readonly polledLast: Record<Network, number> = { testnet: -1, mainnet: -1 };
  private indexPoll: NodeJS.Timeout | null = null;
  private polling = false;
  private stopped = false;

  constructor(
    private readonly ds: DataSource,
    chains: ChainRegistry,
    private readonly config: ExplorerConfig,
    private readonly liveFeed: LiveFeed,
    logger: Logger,
    reads?: ReadRouting,
  ) {
    this.log = logger.child({ component: 'explorer' });
    this.reader = new ChainReader(chains);
    this.index = new BlockIndex(ds, reads && (() => reads.forRead()));
    const watcher = (network: Network) =>
      new ChainWatcher(network, this.reader, (block) => liveFeed.publish(network, block), logger);
    this.watchers = { testnet: watcher('testnet'), mainnet: watcher('mainnet') };
  }

  /** Starts the watchers and, when enabled, the indexers; all in the background. */
  start(): void {
    for (const network of NETWORKS) {
      this.watchers[network].start();
      if (!this.config.indexerEnabled) continue;
      const indexer = new ExplorerIndexer({
        network,
        ds: this.ds,
        index: this.index,
        reader: this.reader,
        watcher: this.watchers[network],
        logger: this.log,
        startBlock: this.config.indexerStartBlock,
        localChain: this.config.localNetworks?.includes(network) ?? false,
        onIndexed: () => this.indexed.notify(network),
      });
      this.indexers[network] = indexer;
      indexer.start();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.indexPoll) clearInterval(this.indexPoll);
    this.indexPoll = null;
    await Promise.all(Object.values(this.indexers).map((i) => i.stop()));
    await Promise.all(NETWORKS.map((n) => this.watchers[n].stop()));
  }

  /** Whether this instance writes the network's index now (else another instance does, and readers poll). */
  isIndexing(network: Network): boolean {
    return this.indexers[network]?.isLeader ?? false;
  }

  /**
   * Resolves once blocks were indexed after the signal's `since` version (or after a while anyway,
   * or when `cancel` settles). Committed by this instance's indexer, they are signalled at once;
   * by another instance's, one poll of the index progress per network (not per waiter) sees them.
   */
  waitForIndexed(network: Network, since: number, cancel?: Promise<unknown>): Promise<void> {
    // Made outside the request's read scope: the poll reads the primary's progress.
    if (!this.stopped) {
      this.indexPoll ??= readFromPrimary(() => setInterval(() => void this.pollIndex(), INDEX_POLL_MS).unref());
    }
    return this.indexed.wait(network, since, this.isIndexing(network) ? 2_000 : 1_000, cancel);
  }

  private async pollIndex(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const network of NETWORKS) {
        if (this.isIndexing(network) || !this.indexed.hasWaiters(network)) continue;
        const last = (await this.index.state(network))?.lastBlock ?? -1;
        if (last === this.polledLast[network]) continue;
        this.polledLast[network] = last;
        this.indexed.notify(network);
      }
    } catch {
      // The database is away: waiters time out and read again, and report it if it lasts.
    } finally {
      this.polling = false;
    }
  }

  /** Every new block of the network, in order, from this app's watcher, which polls fast while someone listens. */
  subscribeLiveBlocks(network: Network): AsyncIterableIterator<BlockSummary> {
    const release = this.watchers[network].retain();
    return this.liveFeed.subscribe(network, release);
  }
}
