import { AsyncLocalStorage } from 'node:async_hooks';
import type { DataSource } from 'typeorm';
import type { Logger } from '../kernel/logger';

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

/** What a read needs of a DataSource. */
export interface Queryable {
  // TypeORM's own signature: rows of any shape, typed by the caller.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(sql: string, parameters?: unknown[]): Promise<any>;
}

/** PostgreSQL codes and pg messages of a database that cannot be reached (not of a bad query). */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', '3D000']);
const unreachable = (err: unknown): boolean => {
  const e = err as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'string' ? e.code : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  return (
    UNREACHABLE_CODES.has(code) ||
    code.startsWith('08') || // connection exception
    code.startsWith('57P') || // the server is shutting down or starting
    /Connection terminated|timeout exceeded when trying to connect/i.test(message)
  );
};

export class ReadRouting {
  private replicaDown = false;
  private readonly replicaWithFallback: Queryable;

  constructor(
    readonly primary: DataSource,
    readonly replica?: DataSource,
    private readonly logger?: Logger,
  ) {
    // A replica that cannot be reached: the read goes to the primary (one warning per outage).
    this.replicaWithFallback = {
      query: async (sql, parameters) => {
        try {
          const rows: unknown = await this.replica!.query(sql, parameters);
          if (this.replicaDown) this.logger?.info('DATABASE_READ_URL answers again');
          this.replicaDown = false;
          return rows;
        } catch (err) {
          if (!unreachable(err)) throw err;
          if (!this.replicaDown) this.logger?.warn('DATABASE_READ_URL does not answer: reading the primary');
          this.replicaDown = true;
          return this.primary.query(sql, parameters);
        }
      },
    };
  }

  /** Where a read made now goes. */
  forRead(): Queryable {
    return this.replica && replicaScope.getStore() === true ? this.replicaWithFallback : this.primary;
  }
}
