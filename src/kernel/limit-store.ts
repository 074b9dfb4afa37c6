import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from './logger';

/**
 * Where the per-second limits and the WebSocket connection caps are counted (docs/api.md, "Several
 * instances"): with REDIS_URL in Redis, by every instance together; without it in this process's
 * memory. While Redis does not answer, this process's memory stands in (a warning is logged once
 * per outage): nothing is refused because Redis is down.
 */
export interface LimitStore {
  readonly kind: 'redis' | 'memory';
  /** A limiter of `points` per `seconds` for keys under `keyPrefix`. */
  limiter(points: number, seconds: number, keyPrefix: string): RateLimiterAbstract;
  /** At most `cap` open connections per key under `name`. */
  connectionCap(name: string, cap: number): ConnectionCap;
  /** Whether counts reach Redis right now (false without it). */
  connected(): boolean;
  close(): Promise<void>;
}

/** Open connections counted per client address key. */
export interface ConnectionCap {
  /**
   * Takes one of `key`'s slots: what gives it back, or undefined when the cap is reached. The
   * release settles once the slot is free on every instance (callers that answer a client only
   * after it, such as a compile, await it; it never rejects).
   */
  acquire(key: string): Promise<(() => Promise<void>) | undefined>;
}

/** Every key of this service in Redis starts with this (one Redis may serve other things). */
const PREFIX = 'devportal:';
/** A Redis command not answered within this is given up: this process's memory decides instead. */
const COMMAND_TIMEOUT_MS = 1000;
/**
 * An open connection's slot in Redis is a lease this process renews; an instance that dies without
 * giving its slots back has them expire after CONNECTION_LEASE_MS.
 */
const CONNECTION_LEASE_MS = 30_000;
const CONNECTION_RENEW_MS = 10_000;

/**
 * Takes a slot in the sorted set KEYS[1] (member ARGV[3], held until ARGV[2] ms from now) unless it
 * already holds ARGV[1] unexpired slots. Redis's own clock: every instance agrees on what expired.
 */
const ACQUIRE_LUA = `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
`;

/** Renews the leases ARGV[2..] in KEYS[1] for ARGV[1] ms (those still there). */
const RENEW_LUA = `
local t = redis.call('TIME')
local until_ = t[1] * 1000 + math.floor(t[2] / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', until_, ARGV[i]) end
if #ARGV > 1 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1])) end
return 1
`;

/** Counts held in this process's memory: the whole store without Redis, the stand-in with it. */
class MemoryCap {
  private readonly held = new Map<string, number>();
  constructor(private readonly cap: number) {}

  take(key: string): (() => void) | undefined {
    const n = this.held.get(key) ?? 0;
    if (n >= this.cap) return undefined;
    this.held.set(key, n + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.held.get(key) ?? 1) - 1;
      if (left <= 0) this.held.delete(key);
      else this.held.set(key, left);
    };
  }
}

export function memoryLimitStore(): LimitStore {
  return {
    kind: 'memory',
    limiter: (points, seconds) => new RateLimiterMemory({ points, duration: seconds }),
    connectionCap: (_name, cap) => {
      const memory = new MemoryCap(cap);
      return {
        acquire: async (key) => {
          const release = memory.take(key);
          return release && (async () => release());
        },
      };
    },
    connected: () => false,
    close: async () => undefined,
  };
}

type CapRedis = Redis & {
  devportalAcquire(key: string, cap: number, leaseMs: number, member: string): Promise<number>;
  devportalRenew(key: string, leaseMs: number, ...members: string[]): Promise<number>;
};

/**
 * The store on REDIS_URL. The URL (it may carry a password) is never logged: errors are logged by
 * their message alone.
 */
export function redisLimitStore(url: string, logger: Logger): LimitStore {
  const redis = new Redis(url, {
    // A command while Redis is unreachable fails at once instead of waiting: memory decides.
    enableOfflineQueue: false,
    commandTimeout: COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
  }) as CapRedis;
  redis.defineCommand('devportalAcquire', { numberOfKeys: 1, lua: ACQUIRE_LUA });
  redis.defineCommand('devportalRenew', { numberOfKeys: 1, lua: RENEW_LUA });

  let down = false;
  const failed = (err: unknown) => {
    // A Redis that hangs (connection open, nothing answered): the connection is dropped and made
    // again, so that until Redis answers every limit counts in memory at once instead of each
    // request waiting out COMMAND_TIMEOUT_MS.
    if (err instanceof Error && /timed out/i.test(err.message) && redis.status === 'ready') redis.disconnect(true);
    if (down) return;
    down = true;
    logger.warn(
      { error: err instanceof Error ? err.message : String(err) },
      'Redis does not answer: the per-second limits and WebSocket caps count in this instance only until it does',
    );
  };
  redis.on('error', failed);
  // A connection lost: the limiters turn to memory at once (rejectIfRedisNotReady), and so does the warning.
  redis.on('close', () => failed(new Error('connection to Redis lost')));
  redis.on('ready', () => {
    if (down) logger.info('Redis answers again: the limits count across instances again');
    down = false;
  });

  // The client as the limiters see it: every command's failure is seen here too (the limiters turn
  // to their memory stand-in without telling).
  const watched = new Proxy(redis, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result: unknown = Reflect.apply(value, target, args);
        if (result instanceof Promise) result.catch(failed);
        return result;
      };
    },
  });

  // The slots this process holds, renewed while their connections stay open.
  const leases = new Map<string, Set<string>>();
  const renew = setInterval(() => {
    if (redis.status !== 'ready') return;
    for (const [key, members] of leases) {
      redis.devportalRenew(key, CONNECTION_LEASE_MS, ...members).catch(failed);
    }
  }, CONNECTION_RENEW_MS);
  renew.unref();

  return {
    kind: 'redis',
    limiter: (points, seconds, keyPrefix) =>
      new RateLimiterRedis({
        storeClient: watched,
        rejectIfRedisNotReady: true,
        keyPrefix: `${PREFIX}${keyPrefix}`,
        points,
        duration: seconds,
        insuranceLimiter: new RateLimiterMemory({ points, duration: seconds }),
      }),
    connectionCap: (name, cap) => {
      const memory = new MemoryCap(cap);
      return {
        acquire: async (key) => {
          // Counted in memory too, so that this instance alone keeps the cap while Redis is down.
          const local = memory.take(key);
          if (!local) return undefined;
          const localOnly = async () => local();
          if (redis.status !== 'ready') return localOnly;
          const setKey = `${PREFIX}ws:${name}:${key}`;
          const member = randomUUID();
          let taken: number;
          try {
            taken = await redis.devportalAcquire(setKey, cap, CONNECTION_LEASE_MS, member);
          } catch (err) {
            failed(err);
            return localOnly;
          }
          if (taken !== 1) {
            local();
            return undefined;
          }
          let members = leases.get(setKey);
          if (!members) leases.set(setKey, (members = new Set()));
          members.add(member);
          return async () => {
            local();
            if (!members.delete(member)) return;
            if (members.size === 0 && leases.get(setKey) === members) leases.delete(setKey);
            await redis.zrem(setKey, member).then(() => undefined, failed);
          };
        },
      };
    },
    connected: () => redis.status === 'ready',
    close: async () => {
      clearInterval(renew);
      redis.removeAllListeners('close');
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

export function createLimitStore(redisUrl: string | undefined, logger: Logger): LimitStore {
  return redisUrl ? redisLimitStore(redisUrl, logger) : memoryLimitStore();
}
