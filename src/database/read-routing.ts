import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource } from 'typeorm';

/**
 * DATABASE_READ_URL (docs/api.md, "Operations"): where the explorer's index reads go. Only reads
 * made inside `readFromReplica` (the explorer's fields for a request without credentials) go to
 * the replica; every other read, a request with credentials included, goes to the primary, so a
 * client always reads its own writes. The index is written by the indexer alone: no client ever
 * wrote what the replica serves.
 */
const replicaScope = new AsyncLocalStorage<true>();

/** Runs `fn` with its index reads on the replica (when there is one). */
export function readFromReplica<T>(fn: () => T): T {
  return replicaScope.run(true, fn);
}

/** Runs `fn` with its reads on the primary, even inside `readFromReplica` (background work it starts). */
export function readFromPrimary<T>(fn: () => T): T {
  return replicaScope.exit(fn);
}

export class ReadRouting {
  constructor(
    readonly primary: DataSource,
    readonly replica?: DataSource,
  ) {}

  /** The DataSource of a read made now. */
  forRead(): DataSource {
    return this.replica && replicaScope.getStore() === true ? this.replica : this.primary;
  }
}
