import type { DataSource, QueryRunner } from 'typeorm';
import { CHAIN_IDS, type Network } from '../../../kernel/network';
import { isAppError } from '../../../kernel/errors/app-error';
import type { Logger } from '../../../kernel/logger';
import type { BlockIndex, IndexState } from './block-index';
import { hexToNumber } from '../views/sources';
import type { ChainReader, FullBlock } from './chain-reader';
import type { ChainWatcher } from './chain-watcher';
import { LOCK_KEYS } from '../../../kernel/lock-keys';

export interface ExplorerIndexerOptions {
  network: Network;
  ds: DataSource;
  index: BlockIndex;
  reader: ChainReader;
  watcher: ChainWatcher;
  logger: Logger;
  /** Where a new index starts (INDEXER_START_BLOCK); an existing index resumes where it stopped. */
  startBlock: number;
  /** Blocks per fetch (and per write transaction when following the head). */
  batchSize?: number;
  /** Batches fetched ahead of the one being written. */
  prefetch?: number;
  /**
   * Most fetched batches written in one transaction while catching up: the batches already fetched
   * when a write starts go together (fewer commits and round trips per block).
   */
  batchesPerWrite?: number;
  /** How often an instance without the lock tries to take it. */
  lockRetryMs?: number;
  /**
   * The chain is a dev chain this service runs: when it no longer holds the indexed blocks (an
   * unclean stop lost its last seconds, or its state was deleted), the index follows it instead of halting.
   */
  localChain?: boolean;
  /** Called after each batch of blocks is committed (followers of the index wait on it). */
  onIndexed?: () => void;
}

/** First key of the indexer's advisory locks (the second is the chain id). */
const LOCK_CLASS = LOCK_KEYS.explorerIndexerClass;
const HALT_RECHECK_MS = 30_000;
const MAX_BACKOFF_MS = 10_000;
const PROGRESS_LOG_MS = 10_000;

class StopIndexing extends Error {}

/**
 * Follows one network and writes its blocks, transactions and logs into PostgreSQL. Exactly one
 * instance writes per network: the one holding a session advisory lock on a dedicated connection,
 * which also carries every write, so a writer whose connection died cannot write anything more.
 * QBFT blocks are final, so there is no reorg handling; a block whose parent is not the stored
 * block stops the network's indexing (on every instance) with an error log. A local dev chain is
 * the exception: its index is rewound to what the chain still holds and indexing goes on.
 */
export class ExplorerIndexer {
  private readonly log: Logger;
  private readonly batchSize: number;
  private readonly prefetch: number;
  private readonly batchesPerWrite: number;
  private readonly lockRetryMs: number;
  private lock: QueryRunner | null = null;
  private leader = false;
  private releaseWatcher: (() => void) | null = null;
  private stopped = true;
  private loop: Promise<void> | null = null;
  private wakeSleep: (() => void) | null = null;
  private halted: string | null = null;
  private failures = 0;
  private nodeDown = false;
  /** For a local chain: whether the index was compared with the chain since this instance took the lock. */
  private matched = false;

  constructor(private readonly o: ExplorerIndexerOptions) {
    this.log = o.logger.child({ component: 'explorer-indexer', network: o.network });
    this.batchSize = o.batchSize ?? 100;
    this.prefetch = o.prefetch ?? 4;
    this.batchesPerWrite = Math.max(1, o.batchesPerWrite ?? 4);
    this.lockRetryMs = o.lockRetryMs ?? 2_000;
  }

  /** Whether this instance holds the network's indexer lock. */
  get isLeader(): boolean {
    return this.leader;
  }

  get haltedReason(): string | null {
    return this.halted;
  }

  /** Starts in the background; never throws. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeSleep?.();
    await this.loop;
    await this.dropLock();
  }

  private async pause(ms: number): Promise<void> {
    if (this.stopped) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeSleep = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wakeSleep = null;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!this.leader && !(await this.tryLock())) {
          await this.pause(this.lockRetryMs);
          continue;
        }
        // After a node failure, wait quietly for the node rather than logging a failed read per retry.
        if (this.nodeDown && !(await this.o.reader.isHealthy(this.o.network))) {
          await this.pause(2_000);
          continue;
        }
        const idleAt = await this.step();
        if (this.failures > 0) this.log.info('Indexing resumed');
        this.failures = 0;
        this.nodeDown = false;
        // Nothing to index: wait for the watcher to see a new head (it polls), a couple of seconds at most.
        if (idleAt !== null) await this.o.watcher.waitForHead(idleAt, 2_000);
      } catch (err) {
        if (err instanceof StopIndexing) continue;
        this.failures++;
        const rpc = isAppError(err);
        this.nodeDown = rpc;
        if (this.failures === 1) {
          this.log.warn(
            { reason: err instanceof Error ? err.message : String(err) },
            rpc
              ? 'Indexing paused: the node does not answer; retrying'
              : 'Indexing paused by a database error; retrying',
          );
        }
        // A database error may mean the lock's connection is gone (and with it the lock).
        if (!rpc) await this.dropLock();
        await this.pause(Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(this.failures, 5)));
      }
    }
  }

  private async tryLock(): Promise<boolean> {
    if (!this.lock) {
      const runner = this.o.ds.createQueryRunner();
      await runner.connect();
      this.lock = runner;
    }
    const rows: Array<{ locked: boolean }> = await this.lock.query('SELECT pg_try_advisory_lock($1, $2) AS locked', [
      LOCK_CLASS,
      CHAIN_IDS[this.o.network],
    ]);
    if (!rows[0]?.locked) return false;
    this.leader = true;
    this.matched = false;
    this.releaseWatcher = this.o.watcher.retain();
    const state = await this.o.index.state(this.o.network, this.lock);
    this.log.info(
      { lastIndexedBlock: state?.lastBlock ?? null },
      state ? 'This instance indexes the network; resuming' : 'This instance indexes the network; starting the index',
    );
    return true;
  }

  private async dropLock(): Promise<void> {
    const runner = this.lock;
    this.lock = null;
    if (this.leader) this.log.info('Released the indexer lock');
    this.leader = false;
    this.releaseWatcher?.();
    this.releaseWatcher = null;
    if (!runner) return;
    await runner
      .query('SELECT pg_advisory_unlock($1, $2)', [LOCK_CLASS, CHAIN_IDS[this.o.network]])
      .catch(() => undefined);
    await runner.release().catch(() => undefined);
  }

  /** Indexes what the node has beyond the index; returns the head when there was nothing to do. */
  private async step(): Promise<number | null> {
    const runner = this.lock!;
    let state = await this.o.index.state(this.o.network, runner);
    if (state && this.o.localChain && (state.haltedReason || !this.matched)) {
      if (await this.followLocalChain(state)) state = await this.o.index.state(this.o.network, runner);
      this.matched = true;
    }
    if (state?.haltedReason) {
      if (this.halted === null) {
        this.log.error(
          { reason: state.haltedReason },
          `The explorer index of ${this.o.network} is halted; clear explorer_index_state.halted_reason to resume`,
        );
      }
      this.halted = state.haltedReason;
      await this.pause(HALT_RECHECK_MS);
      return null;
    }
    if (this.halted !== null && !state) {
      // Halted before the first batch was written: nothing in the database to clear; stay stopped.
      await this.pause(HALT_RECHECK_MS);
      return null;
    }
    if (this.halted !== null) this.log.info('The halt was cleared; indexing resumes');
    this.halted = null;
    const head = await this.o.reader.headNumber(this.o.network);
    const next = state ? state.lastBlock + 1 : this.o.startBlock;
    // A local chain behind its index lost blocks (an unclean stop): compare again before waiting for it.
    if (state && this.o.localChain && state.lastBlock > head) this.matched = false;
    if (next > head) return head;
    await this.catchUp(next, head, state);
    return null;
  }

  /** Fetches [from, to] in batches, several ahead, and writes them in order, checking every parent hash. */
  private async catchUp(from: number, to: number, state: IndexState | null): Promise<void> {
    const runner = this.lock!;
    const firstBlock = state?.firstBlock ?? from;
    let lastNumber = state?.lastBlock ?? null;
    let lastHash = state?.lastHash ?? null;
    const total = to - from + 1;
    const big = total >= 10 * this.batchSize;
    if (big) this.log.info({ from, to, blocks: total }, 'Catching up');
    const started = Date.now();
    let lastReport = started;
    let written = 0;

    let nextStart = from;
    /** A batch being fetched: how many blocks were asked for, and whether the answer is in. */
    interface Fetch {
      asked: number;
      blocks: Promise<FullBlock[]>;
      settled: boolean;
    }
    const pending: Fetch[] = [];
    const fetchNext = () => {
      if (nextStart > to) return;
      const end = Math.min(to, nextStart + this.batchSize - 1);
      const fetch: Fetch = {
        asked: end - nextStart + 1,
        blocks: this.o.reader.fullBlocks(this.o.network, nextStart, end),
        settled: false,
      };
      // awaited below in order; this only marks it done and silences the ones left behind on failure
      fetch.blocks.then(
        () => (fetch.settled = true),
        () => (fetch.settled = true),
      );
      pending.push(fetch);
      nextStart = end + 1;
    };
    for (let i = 0; i < this.prefetch; i++) fetchNext();

    while (pending.length > 0 && !this.stopped) {
      const blocks: FullBlock[] = [];
      // The next batch, then those already fetched behind it (up to batchesPerWrite), in one write;
      // a batch shorter than asked (the node did not have it all yet) is the last one.
      let whole = true;
      for (let n = 0; n < this.batchesPerWrite && whole && pending.length > 0; n++) {
        if (n > 0 && !pending[0]!.settled) break;
        const fetch = pending.shift()!;
        const got = await fetch.blocks;
        fetchNext();
        for (const b of got) blocks.push(b);
        whole = got.length === fetch.asked;
      }
      if (blocks.length === 0) return;
      const previous = lastNumber;
      for (const { block } of blocks) {
        const number = hexToNumber(block.number);
        const expected = (lastNumber ?? from - 1) + 1;
        if (number !== expected) throw new Error(`The node returned block ${number} where ${expected} was expected`);
        const parent = block.parentHash.toLowerCase();
        if (lastHash !== null && parent !== lastHash) await this.haltOnMismatch(number, parent, lastHash);
        lastNumber = number;
        lastHash = block.hash.toLowerCase();
      }
      if (!(await this.o.index.writeBatch(runner, this.o.network, blocks, previous, firstBlock))) {
        this.log.warn('The index progress was moved by another writer; re-reading it');
        return;
      }
      written += blocks.length;
      this.o.onIndexed?.();
      if (big && Date.now() - lastReport >= PROGRESS_LOG_MS) {
        lastReport = Date.now();
        const rate = Math.round((written * 1000) / (Date.now() - started));
        this.log.info({ lastIndexedBlock: lastNumber, to, blocksPerSecond: rate }, 'Catching up');
      }
      // The node did not have the whole batch (yet): read the head again.
      if (!whole) return;
    }
    if (big) {
      const seconds = (Date.now() - started) / 1000;
      this.log.info(
        { lastIndexedBlock: lastNumber, blocks: written, seconds, blocksPerSecond: Math.round(written / seconds) },
        'Caught up',
      );
    }
  }

  /**
   * Rewinds the index of a local dev chain to the last block the chain still has with the same hash
   * (nothing when it was reset to a new genesis); returns whether the index changed.
   */
  private async followLocalChain(state: IndexState): Promise<boolean> {
    const { network, reader, index } = this.o;
    const head = await reader.headNumber(network);
    let keep = Math.min(state.lastBlock, head);
    let step = 1;
    // Newest first, doubling the step: a short loss costs a few reads, a new genesis about log2(blocks).
    for (; keep >= state.firstBlock; keep -= step, step *= 2) {
      const [onChain] = await reader.blocks(network, [keep], false);
      const stored = await index.blockByNumber(network, keep);
      if (onChain && stored && onChain.hash.toLowerCase() === stored.hash.toLowerCase()) break;
    }
    if (keep >= state.lastBlock && !state.haltedReason) return false;
    const from = Math.max(keep + 1, 0);
    const lost = state.lastBlock - from + 1;
    this.log.warn(
      { lastIndexedBlock: state.lastBlock, chainHead: head, keptUpTo: from > state.firstBlock ? keep : null },
      from > state.firstBlock
        ? `The local ${network} dev chain lost its last ${lost} indexed blocks (an unclean stop); re-indexing from block ${from}`
        : `The local ${network} dev chain is not the one indexed (it was reset); re-indexing it from the start`,
    );
    await index.forgetFrom(this.lock!, network, from);
    this.halted = null;
    return true;
  }

  private async haltOnMismatch(number: number, parentHash: string, storedHash: string): Promise<never> {
    if (this.o.localChain) {
      this.matched = false;
      throw new StopIndexing();
    }
    const reason =
      `block ${number} has parent hash ${parentHash} but the indexed block ${number - 1} has hash ${storedHash}; ` +
      'QBFT blocks are final, so the node serves a different chain than the one indexed';
    this.halted = reason;
    await this.o.index.halt(this.lock!, this.o.network, reason);
    this.log.error(
      { block: number, parentHash, indexedParentHash: storedHash },
      `EXPLORER INDEXER STOPPED for ${this.o.network}: parent hash mismatch at block ${number}. ` +
        'Check the node; to re-index, delete the network from explorer_index_state and its rows from the explorer tables',
    );
    throw new StopIndexing();
  }
}
