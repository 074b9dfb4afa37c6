import { LRUCache } from 'lru-cache';
import type { Network } from '../../kernel/network';
import { AppError, isAppError } from '../../kernel/errors/app-error';

export interface ReadCacheOptions {
  /** Most answers kept per network (GATEWAY_READ_CACHE_MAX_ENTRIES); 0 turns caching off (calls are still coalesced). */
  maxEntries: number;
  /** Most bytes of answers kept per network (GATEWAY_READ_CACHE_MAX_BYTES). */
  maxBytes: number;
}

/** Counts since start, for the metrics (`gateway_read_cache_*_total`). */
export interface ReadCacheStats {
  /** Answered from the cache. */
  hits: number;
  /** Sent to the node (one eth_call each). */
  misses: number;
  /** Joined a call already on its way to the node for the same read at the same block. */
  coalesced: number;
  /** Sent to the node as a plain `latest` call, uncached (the head was not known or stale). */
  bypassed: number;
  /** Answers held now, over all networks, and their size in bytes. */
  entries: number;
  bytes: number;
}

/** What a read at one block came to: the node's answer, or the revert it ended in (both fixed for the block). */
type Outcome = { raw: string } | { revert: AppError };

/** One network's answers, all of the same block: a new block drops them all. */
interface Shelf {
  block: number;
  answers: LRUCache<string, Outcome>;
}

/** Key and answer strings are UTF-16 in memory; a flat overhead covers the entry's own objects. */
const ENTRY_OVERHEAD_BYTES = 64;

const sizeOf = (key: string, outcome: Outcome): number =>
  ENTRY_OVERHEAD_BYTES +
  2 * key.length +
  ('raw' in outcome ? 2 * outcome.raw.length : 2 * outcome.revert.message.length + 256);

/** A copy per caller: an error object is never shared between two requests. */
const copyOf = (e: AppError): AppError => new AppError(e.code, e.message, e.details, e.headers);

/**
 * Block-scoped answers of read calls (eth_call) with single flight. An answer at block N holds
 * until block N+1 exists (QBFT blocks are final), so it is kept per (network, call, block) and
 * dropped when a read at a later block arrives. Identical reads in flight share one eth_call; a
 * failing call fails every caller sharing it with the same error. Reverts are kept like answers
 * (deterministic for a block); node failures (timeouts, upstream errors) never are.
 */
export class ReadCache {
  private readonly shelves = new Map<Network, Shelf>();
  private readonly inFlight = new Map<string, Promise<Outcome>>();
  private readonly counts = { hits: 0, misses: 0, coalesced: 0, bypassed: 0 };

  constructor(private readonly opts: ReadCacheOptions) {}

  /**
   * The answer of the call `to`/`data` at `block`: cached, joined to an identical call in flight,
   * or loaded with `load` (one eth_call pinned to that block). `load` throws an EXECUTION_REVERTED
   * AppError for a revert, which is kept; anything else it throws is passed on and forgotten.
   */
  async read(network: Network, block: number, to: string, data: string, load: () => Promise<string>): Promise<string> {
    const key = `${to.toLowerCase()}:${data.toLowerCase()}`;
    const shelf = this.shelf(network, block);
    const kept = shelf?.answers.get(key);
    if (kept) {
      this.counts.hits++;
      return unwrap(kept);
    }
    const flightKey = `${network}:${block}:${key}`;
    const joined = this.inFlight.get(flightKey);
    if (joined) return this.follow(joined);
    this.counts.misses++;
    const flight = load().then(
      (raw): Outcome => ({ raw }),
      (e: unknown): Outcome => {
        if (isAppError(e) && e.code === 'EXECUTION_REVERTED') return { revert: e };
        throw e;
      },
    );
    this.inFlight.set(flightKey, flight);
    try {
      const outcome = await flight;
      // The shelf may have moved on to a later block while the call ran: then the answer is not kept.
      const current = this.shelf(network, block);
      if (current && current.block === block) current.answers.set(key, outcome);
      return unwrap(outcome);
    } finally {
      this.inFlight.delete(flightKey);
    }
  }

  /**
   * The kept answer of the call `to`/`data` at `block` (`to` and `data` in lower case), counted as a
   * hit; undefined, nothing counted, when there is none or the call reverted (read answers both).
   */
  hit(network: Network, block: number, to: string, data: string): string | undefined {
    const kept = this.shelf(network, block)?.answers.get(`${to}:${data}`);
    if (kept === undefined || !('raw' in kept)) return undefined;
    this.counts.hits++;
    return kept.raw;
  }

  /**
   * A read at the node's `latest` block, for when no head is known: never kept, but identical reads
   * in flight still share one eth_call, so a slow node is not sent one call per waiting client.
   */
  async readLatest(network: Network, to: string, data: string, load: () => Promise<string>): Promise<string> {
    const flightKey = `${network}:latest:${to.toLowerCase()}:${data.toLowerCase()}`;
    const joined = this.inFlight.get(flightKey);
    if (joined) return this.follow(joined);
    this.counts.bypassed++;
    const flight = load().then((raw): Outcome => ({ raw }));
    this.inFlight.set(flightKey, flight);
    try {
      return unwrap(await flight);
    } finally {
      this.inFlight.delete(flightKey);
    }
  }

  /** Joins a call in flight: its answer, or its failure with the same code and message. */
  private async follow(joined: Promise<Outcome>): Promise<string> {
    this.counts.coalesced++;
    let outcome: Outcome;
    try {
      outcome = await joined;
    } catch (e) {
      throw isAppError(e) ? copyOf(e) : e;
    }
    return unwrap(outcome);
  }

  stats(): ReadCacheStats {
    let entries = 0;
    let bytes = 0;
    for (const shelf of this.shelves.values()) {
      entries += shelf.answers.size;
      bytes += shelf.answers.calculatedSize;
    }
    return { ...this.counts, entries, bytes };
  }

  /**
   * The network's shelf for reads at `block`: a later block empties it first; an earlier block (a
   * read pinned before a newer one was seen) gets none and is neither served nor kept.
   */
  private shelf(network: Network, block: number): Shelf | undefined {
    if (this.opts.maxEntries <= 0) return undefined;
    let shelf = this.shelves.get(network);
    if (!shelf) {
      shelf = {
        block,
        answers: new LRUCache<string, Outcome>({
          max: this.opts.maxEntries,
          maxSize: this.opts.maxBytes,
          sizeCalculation: (outcome, key) => sizeOf(key, outcome),
        }),
      };
      this.shelves.set(network, shelf);
      return shelf;
    }
    if (block > shelf.block) {
      shelf.answers.clear();
      shelf.block = block;
    }
    return block === shelf.block ? shelf : undefined;
  }
}

function unwrap(outcome: Outcome): string {
  if ('raw' in outcome) return outcome.raw;
  throw copyOf(outcome.revert);
}
