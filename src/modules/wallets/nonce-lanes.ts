import type { JsonRpcProvider } from 'ethers';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { Network } from '../../kernel/network';
import { LOCK_KEYS } from '../../kernel/lock-keys';

/** Serialises work per key inside this process (other processes are held off by PostgreSQL). */
class KeyedQueue {
  private tails = new Map<string, Promise<unknown>>();
  private counts = new Map<string, number>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    const previous = this.tails.get(key) ?? Promise.resolve();
    const counted = () => {
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left === 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
    const result = previous.then(task, task).finally(counted);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Tasks of `key` queued or running. */
  size(key: string): number {
    return this.counts.get(key) ?? 0;
  }
}

/**
 * A wallet's advisory lock, held by this process across a burst of sends (at most LANE_MAX_MS and
 * LANE_MAX_SENDS, then handed over so that other instances get their turn). While it is held no
 * other sender can use the wallet, so the nonce after a sent transaction is known without asking.
 */
export interface Lane {
  readonly runner: QueryRunner;
  readonly since: number;
  sends: number;
  /** The nonce after the last one this hold sent; undefined: read it from the records and the node. */
  next?: number;
}

const LANE_MAX_MS = 2000;
const LANE_MAX_SENDS = 200;

/**
 * The sender's nonce stage: one lane per (network, address), under a PostgreSQL session advisory
 * lock, so concurrent senders on one or several instances never take the same nonce.
 */
export class NonceLanes {
  private readonly queue = new KeyedQueue();
  private readonly lanes = new Map<string, Lane>();

  constructor(private readonly ds: DataSource) {}

  /**
   * Runs `task` holding the wallet's lane (after the tasks queued before it in this process). A
   * task that throws ends the hold: the next one reads its nonce anew.
   */
  run<T>(network: Network, address: string, task: (lane: Lane) => Promise<T>): Promise<T> {
    const key = `${network}:${address}`;
    return this.queue.run(key, async () => {
      const lane = await this.enterLane(key);
      let keep = false;
      try {
        const result = await task(lane);
        keep = true;
        return result;
      } finally {
        await this.leaveLane(key, lane, keep);
      }
    });
  }

  /** Next nonce: after every transaction this service recorded and every one the node has seen. */
  async nextNonce(
    manager: EntityManager,
    network: Network,
    address: string,
    provider: JsonRpcProvider,
    translate: (e: unknown) => Promise<unknown>,
  ): Promise<number> {
    const [row] = (await manager.query(
      `SELECT max(nonce) AS last FROM chain_transactions
        WHERE network = $1 AND from_address = $2 AND status <> 'dropped'`,
      [network, address],
    )) as Array<{ last: string | null }>;
    const recorded = row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1;
    const onChain = await provider.getTransactionCount(address, 'pending').catch(async (e: unknown) => {
      throw await translate(e);
    });
    return Math.max(recorded, onChain);
  }

  /** The wallet's lane: the one this process already holds, or a new hold of its advisory lock. */
  private async enterLane(key: string): Promise<Lane> {
    const held = this.lanes.get(key);
    if (held) return held;
    const runner = this.ds.createQueryRunner();
    await runner.connect();
    try {
      // Session lock: held across commit and broadcast, released even if this process dies.
      await runner.query('SELECT pg_advisory_lock(hashtext($1))', [LOCK_KEYS.nonce(key)]);
    } catch (e) {
      await runner.release();
      throw e;
    }
    const lane: Lane = { runner, since: Date.now(), sends: 0 };
    this.lanes.set(key, lane);
    return lane;
  }

  /**
   * Keeps the lock for the next send queued in this process, unless the hold is long enough (or
   * ended in an error): then unlocks, and the next send takes it anew, reading its nonce again.
   */
  private async leaveLane(key: string, lane: Lane, ok: boolean): Promise<void> {
    lane.sends += 1;
    const more = this.queue.size(key) > 1;
    if (ok && more && lane.sends < LANE_MAX_SENDS && Date.now() - lane.since < LANE_MAX_MS) return;
    this.lanes.delete(key);
    try {
      await lane.runner.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK_KEYS.nonce(key)]).catch(() => undefined);
    } finally {
      await lane.runner.release();
    }
  }
}
