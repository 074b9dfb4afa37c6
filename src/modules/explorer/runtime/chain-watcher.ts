import type { Network } from '../../../kernel/network';
import type { Logger } from '../../../kernel/logger';
import type { HeadSubscription } from '../../../chain/head-subscription';
import type { RpcBlock } from '../views/sources';
import type { ChainReader } from './chain-reader';
import type { BlockSummary } from '../views/blocks.types';
import { summaryFromRpc } from '../views/blocks.views';

export interface ChainWatcherOptions {
  /** Poll interval while someone listens (subscribers, the indexer). */
  pollMs?: number;
  /** Poll interval otherwise: keeps the last known block fresh for network-status. */
  idlePollMs?: number;
  /** Most blocks replayed after an outage; older ones are skipped with a warning. */
  maxBackfill?: number;
  /** Safety poll interval while a node's WebSocket announces the heads (docs/api.md "Operations"). */
  socketPollMs?: number;
}

/** The latest block seen by a watcher. */
export interface KnownBlock {
  summary: BlockSummary;
  extraData: string;
  /** When it was fetched (ms since epoch). */
  seenAt: number;
}

const DEFAULTS = { pollMs: 250, idlePollMs: 1_000, maxBackfill: 1_000, socketPollMs: 1_000 };
/** Blocks fetched per JSON-RPC batch while backfilling. */
const BACKFILL_CHUNK = 50;
const NODE_TIMEOUT = { attempts: 1, timeoutMs: 2_000 };

/**
 * Follows the head of one network for the whole process: publishes every new block, in order and
 * without gaps (missed numbers are fetched and published in order, also after the node comes
 * back), and wakes whoever waits for a new head. With the nodes' WebSockets (`*_WS_URL`), each
 * newHeads announcement fetches and publishes at once, and a slow safety poll catches whatever a
 * socket missed; without them, or while they are down, following the head means polling
 * eth_blockNumber: one cheap call per interval, whatever the number of subscribers.
 */
export class ChainWatcher {
  private readonly opts: Required<ChainWatcherOptions>;
  private latest: KnownBlock | null = null;
  /** When the node last answered a poll (ms since epoch): how fresh `latest` is as the head. */
  private checkedAt: number | null = null;
  private lastPublished: number | null = null;
  private retained = 0;
  private failing = false;
  private stopped = true;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private heads: HeadSubscription | null = null;
  /** Highest head a node announced since the last tick started. */
  private announced: number | null = null;
  /** An announcement came during a tick: run again as soon as it ends. */
  private wake = false;
  private readonly headWaiters = new Set<{ after: number; resolve: (head: number | null) => void }>();
  private readonly log: Logger;

  constructor(
    readonly network: Network,
    private readonly reader: ChainReader,
    private readonly publish: (block: BlockSummary) => void,
    logger: Logger,
    opts: ChainWatcherOptions = {},
  ) {
    this.opts = { ...DEFAULTS, ...opts };
    this.log = logger.child({ component: 'chain-watcher', network });
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.heads = this.reader.followHeads(this.network, {
      onHead: (head) => this.announce(head),
      // Socket back: it may have missed heads while away; socket lost: the poll takes over. Look now.
      onLive: () => this.announce(null),
    });
    this.schedule(0);
  }

  /** Whether a node's WebSocket announces the heads now (else they are polled). */
  followsSocket(): boolean {
    return this.heads?.isLive() ?? false;
  }

  /** A node announced `head` (null: something may have changed): fetch it now, after the tick under way if any. */
  private announce(head: number | null): void {
    if (this.stopped) return;
    if (head !== null && (this.announced === null || head > this.announced)) this.announced = head;
    if (this.running) this.wake = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.heads?.close();
    this.heads = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const w of this.headWaiters) w.resolve(null);
    this.headWaiters.clear();
    await this.running;
  }

  /** Polls fast until the returned function is called (a subscriber, the indexer). */
  retain(): () => void {
    this.retained++;
    if (this.retained === 1 && this.timer && !this.running) this.schedule(0);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.retained--;
    };
  }

  /** The latest block seen, kept while the node is down. */
  latestKnown(): KnownBlock | null {
    return this.latest;
  }

  /** The head as of the last poll the node answered, and when that was; null before the first. */
  head(): { number: number; checkedAt: number } | null {
    if (this.latest === null || this.checkedAt === null) return null;
    return { number: this.latest.summary.number, checkedAt: this.checkedAt };
  }

  /** Resolves with the head once it is above `after`, or null after `timeoutMs`. */
  waitForHead(after: number, timeoutMs: number): Promise<number | null> {
    const head = this.latest?.summary.number;
    if (head !== undefined && head > after) return Promise.resolve(head);
    return new Promise((resolve) => {
      const waiter = {
        after,
        resolve: (h: number | null) => {
          clearTimeout(timer);
          this.headWaiters.delete(waiter);
          resolve(h);
        },
      };
      const timer = setTimeout(() => waiter.resolve(null), timeoutMs);
      this.headWaiters.add(waiter);
    });
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      const started = Date.now();
      this.running = this.tick().finally(() => {
        this.running = null;
        const woken = this.wake;
        this.wake = false;
        const interval = woken
          ? 0
          : this.failing
            ? this.opts.idlePollMs
            : this.followsSocket()
              ? this.opts.socketPollMs
              : this.retained > 0
                ? this.opts.pollMs
                : this.opts.idlePollMs;
        this.schedule(Math.max(0, interval - (Date.now() - started)));
      });
    }, delayMs);
  }

  private remember(block: RpcBlock): BlockSummary {
    const summary = summaryFromRpc(block);
    this.latest = { summary, extraData: block.extraData ?? '0x', seenAt: Date.now() };
    return summary;
  }

  private async tick(): Promise<void> {
    if (!this.reader.isAvailable(this.network)) return;
    // While the node is down, probe it quietly instead of logging a failed read every interval.
    if (this.failing && !(await this.reader.isHealthy(this.network))) return;
    try {
      const polledAt = Date.now();
      const announced = this.announced;
      this.announced = null;
      // A head announced above the last published one is taken as it is (no eth_blockNumber first);
      // anything else (a head going backwards, a restart) is checked by asking the node.
      const head =
        announced !== null && this.lastPublished !== null && announced > this.lastPublished
          ? announced
          : await this.reader.headNumber(this.network, NODE_TIMEOUT);
      if (this.lastPublished === null || head < this.lastPublished) {
        if (this.lastPublished !== null) {
          this.log.warn({ head, lastPublished: this.lastPublished }, 'The node head went backwards; following it');
        }
        const [block] = await this.reader.blocks(this.network, [head], false);
        if (block) {
          this.remember(block);
          this.lastPublished = head;
        }
      } else if (head > this.lastPublished) {
        let from = this.lastPublished + 1;
        if (head - from + 1 > this.opts.maxBackfill) {
          this.log.warn(
            { from, head, skipped: head - this.opts.maxBackfill + 1 - from },
            'Too many blocks missed to replay them all to live subscribers; skipping the oldest',
          );
          from = head - this.opts.maxBackfill + 1;
        }
        while (from <= head && !this.stopped) {
          const to = Math.min(head, from + BACKFILL_CHUNK - 1);
          const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i);
          const blocks = await this.reader.blocks(this.network, numbers, false);
          for (const block of blocks) {
            if (!block) return;
            const summary = this.remember(block);
            this.lastPublished = summary.number;
            this.publish(summary);
          }
          from = to + 1;
        }
      }
      this.checkedAt = polledAt;
      if (this.failing) this.log.info('The node answers again; live blocks resume (missed blocks replayed)');
      this.failing = false;
      const known = this.latest?.summary.number;
      if (known !== undefined) {
        for (const w of [...this.headWaiters]) if (known > w.after) w.resolve(known);
      }
    } catch (err) {
      if (!this.failing) {
        this.log.warn(
          { reason: err instanceof Error ? err.message : String(err) },
          'The node does not answer; live blocks paused',
        );
      }
      this.failing = true;
    }
  }
}
