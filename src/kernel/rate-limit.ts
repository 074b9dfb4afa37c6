import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import { AppError } from './errors/app-error';
import type { LimitStore } from './limit-store';

/** Table of the shared counters (migrations/1763780000000-RateLimits.ts). */
const SHARED_TABLE = 'rate_limits';

/**
 * A per-key request budget (rate-limiter-flexible): `points` requests per `seconds`; 0 points turns
 * it off. Over budget → 429 RATE_LIMITED with Retry-After. In this process's memory, or with `shared`
 * in PostgreSQL, counted by every instance together (this process's memory stands in while the
 * database does not answer), or with `store` in that store (limit-store.ts: Redis with REDIS_URL).
 */
export class RequestLimit {
  private readonly limiter?: RateLimiterAbstract;

  constructor(
    points: number,
    seconds: number,
    private readonly what: string,
    shared?: { ds: DataSource; keyPrefix: string } | { store: LimitStore; keyPrefix: string },
  ) {
    if (points <= 0) return;
    if (shared && 'store' in shared) {
      this.limiter = shared.store.limiter(points, seconds, shared.keyPrefix);
      return;
    }
    const memory = new RateLimiterMemory({ points, duration: seconds });
    this.limiter = shared
      ? new RateLimiterPostgres({
          storeClient: shared.ds,
          storeType: 'typeorm',
          tableName: SHARED_TABLE,
          tableCreated: true,
          keyPrefix: shared.keyPrefix,
          points,
          duration: seconds,
          insuranceLimiter: memory,
        })
      : memory;
  }

  get enabled(): boolean {
    return this.limiter !== undefined;
  }

  /**
   * Adds `points` to what `key` has spent in the current window, never refusing: a cost learnt after
   * the request was admitted (the size of its answer) makes the next requests wait sooner.
   */
  async charge(key: string, points: number): Promise<void> {
    if (!this.limiter || points <= 0) return;
    await this.limiter.penalty(key, points);
  }

  /** Counts one request of `key`; throws RATE_LIMITED when its budget is spent. */
  async consume(key: string): Promise<void> {
    if (!this.limiter) return;
    try {
      await this.limiter.consume(key);
    } catch (e) {
      if (!(e instanceof RateLimiterRes)) throw e;
      const seconds = Math.max(1, Math.ceil(e.msBeforeNext / 1000));
      throw new AppError(
        'RATE_LIMITED',
        `Too many ${this.what}; retry in ${seconds} s`,
        { retryAfterSeconds: seconds },
        { 'Retry-After': String(seconds) },
      );
    }
  }
}

/** The limits of docs/api.md, "Conventions" that are counted per client address or per developer. */
export interface RateLimits {
  /** Anonymous requests per client IP per second (PUBLIC_RATE_LIMIT). */
  public: RequestLimit;
  /** EDS challenges and logins per client IP per minute (LOGIN_RATE_LIMIT). */
  login: RequestLimit;
  /** Authenticated requests per developer per second, over all keys and tokens (DEVELOPER_RATE_LIMIT). */
  developer: RequestLimit;
}

/**
 * The per-second limits count in `store` (a database round trip per request would cost more than
 * what they protect): Redis with REDIS_URL, else this process's memory; the login limit, a few
 * requests a minute, is shared through PostgreSQL.
 */
export function createRateLimits(
  limits: { publicPerSecond: number; loginPerMinute: number; developerPerSecond: number },
  ds?: DataSource,
  store?: LimitStore,
): RateLimits {
  return {
    public: new RequestLimit(
      limits.publicPerSecond,
      1,
      'anonymous requests from this address',
      store && { store, keyPrefix: 'public' },
    ),
    login: new RequestLimit(
      limits.loginPerMinute,
      60,
      'login attempts from this address',
      ds ? { ds, keyPrefix: 'login' } : undefined,
    ),
    developer: new RequestLimit(
      limits.developerPerSecond,
      1,
      "requests for this developer's keys and tokens",
      store && { store, keyPrefix: 'developer' },
    ),
  };
}
