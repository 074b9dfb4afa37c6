import type { Network } from '../../kernel/network';

/** A head as a follower of the chain last saw it. */
export interface HeadObservation {
  number: number;
  /** When the node last answered the follower (ms since epoch). */
  checkedAt: number;
}

/** Who follows each network's head (the explorer's chain watchers). */
export interface HeadSource {
  head(network: Network): HeadObservation | null;
  /** Keeps the follower polling at its fast rate until the returned function is called. */
  retain(network: Network): () => void;
}

export interface KnownHeadsOptions {
  /** A head not confirmed by the node for longer is not used (reads go to `latest` uncached). */
  staleMs?: number;
  /** The follower is kept fast while reads come; released after this long without one. */
  holdMs?: number;
  /** A head raised by an invoke is dropped after this long if the follower never reached it (a chain reset). */
  raisedTtlMs?: number;
  now?: () => number;
}

const DEFAULTS = { staleMs: 2_000, holdMs: 60_000, raisedTtlMs: 10_000 };

/**
 * The block the gateway reads at, per network: the head its chain watcher follows, raised at once
 * to the block of every receipt an invoke saw, so that no read answers from a block older than one
 * this service already named to a client. Null when the head is unknown or stale (the watcher is
 * not running or the node does not answer): the caller then reads `latest` without caching.
 */
export class KnownHeads {
  private readonly opts: Required<Omit<KnownHeadsOptions, 'now'>>;
  private readonly now: () => number;
  private readonly raised = new Map<Network, { number: number; at: number }>();
  private readonly held = new Map<Network, { release: () => void; lastUse: number; timer: NodeJS.Timeout }>();

  constructor(
    private readonly source: HeadSource,
    opts: KnownHeadsOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.opts = {
      staleMs: opts.staleMs ?? DEFAULTS.staleMs,
      holdMs: opts.holdMs ?? DEFAULTS.holdMs,
      raisedTtlMs: opts.raisedTtlMs ?? DEFAULTS.raisedTtlMs,
    };
  }

  /** The block to read at, or null to read `latest` uncached. */
  head(network: Network): number | null {
    const now = this.now();
    this.hold(network, now);
    const seen = this.source.head(network);
    const raised = this.raised.get(network);
    if (raised && ((seen !== null && seen.number >= raised.number) || now - raised.at > this.opts.raisedTtlMs)) {
      this.raised.delete(network);
    }
    if (seen === null || now - seen.checkedAt > this.opts.staleMs) return null;
    const lifted = this.raised.get(network)?.number;
    return lifted !== undefined && lifted > seen.number ? lifted : seen.number;
  }

  /**
   * The block to read a contract at: the head, but never before the contract's own block (a
   * follower a moment behind a fresh deployment would read no code there). Null when the head is
   * not known.
   */
  headFor(network: Network, deployedAt: number | null): number | null {
    const block = this.head(network);
    if (block === null || deployedAt === null || block >= deployedAt) return block;
    this.raise(network, deployedAt);
    return deployedAt;
  }

  /** A receipt in `block` was seen (and named to a client): reads from now on are at that block or later. */
  raise(network: Network, block: number): void {
    const current = this.raised.get(network);
    if (current === undefined || block > current.number) this.raised.set(network, { number: block, at: this.now() });
  }

  /** Releases the followers held fast. */
  close(): void {
    for (const h of this.held.values()) {
      clearInterval(h.timer);
      h.release();
    }
    this.held.clear();
  }

  private hold(network: Network, now: number): void {
    const held = this.held.get(network);
    if (held) {
      held.lastUse = now;
      return;
    }
    const entry = {
      release: this.source.retain(network),
      lastUse: now,
      timer: setInterval(() => {
        if (this.now() - entry.lastUse < this.opts.holdMs) return;
        clearInterval(entry.timer);
        entry.release();
        this.held.delete(network);
      }, this.opts.holdMs),
    };
    entry.timer.unref();
    this.held.set(network, entry);
  }
}
