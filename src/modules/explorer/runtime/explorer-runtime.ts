import type { DataSource } from 'typeorm';
import { NETWORKS, type Network } from '../../../kernel/network';
import type { Logger } from '../../../kernel/logger';
import type { BlockSummary } from '../views/blocks.types';
import { readFromPrimary } from '../../../database/read-routing';
import type { BlockIndex } from './block-index';
import type { ChainReader } from './chain-reader';
import { ChainWatcher, type KnownBlock } from './chain-watcher';
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
 * block index while this instance holds the network's lock. The queries ask it, by network, what
 * its watchers and indexers know; they read the node and the index themselves.
 */
export class ExplorerRuntime {
  /** Notified when blocks are indexed (by this instance's indexer, or seen polled from another's). */
  readonly indexed = new IndexSignal();
  private readonly watchers: Record<Network, ChainWatcher>;
  private readonly indexers: Partial<Record<Network, ExplorerIndexer>> = {};
  private readonly log: Logger;
  /** Last block of each network's index as the poll below last saw it. */
  private readonly polledLast: Record<Network, number> = { testnet: -1, mainnet: -1 };
  private indexPoll: NodeJS.Timeout | null = null;
  private polling = false;
  private stopped = false;

  constructor(
    private readonly ds: DataSource,
    private readonly reader: ChainReader,
    private readonly index: BlockIndex,
    private readonly config: ExplorerConfig,
    private readonly liveFeed: LiveFeed,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'explorer' });
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

  /** The networks this instance runs an indexer for (leading or waiting for the lock); none without INDEXER_ENABLED. */
  indexerNetworks(): Network[] {
    return NETWORKS.filter((n) => this.indexers[n] !== undefined);
  }

  /** The newest block the network's watcher has seen (with its extraData), or null before the first. */
  latestKnown(network: Network): KnownBlock | null {
    return this.watchers[network].latestKnown();
  }

  /** The network's head as its watcher last confirmed it, and when; null before the first. */
  head(network: Network): { number: number; checkedAt: number } | null {
    return this.watchers[network].head();
  }

  /** Keeps the network's watcher polling fast until the returned release is called. */
  retain(network: Network): () => void {
    return this.watchers[network].retain();
  }

  /** Whether the network's watcher follows the node's new heads over its WebSocket (else it polls). */
  followsSocket(network: Network): boolean {
    return this.watchers[network].followsSocket();
  }

  /** A counter that moves whenever the network's blocks are indexed: read it before reading the index, then waitForIndexed with it. */
  indexedVersion(network: Network): number {
    return this.indexed.version(network);
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
    const release = this.retain(network);
    return this.liveFeed.subscribe(network, release);
  }
}
