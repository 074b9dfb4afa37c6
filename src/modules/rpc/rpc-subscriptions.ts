import { LRUCache } from 'lru-cache';
import type { ChainRegistry } from '../../chain/chain-registry';
import type { Network } from '../../kernel/network';
import { AppError } from '../../kernel/errors/app-error';
import { MAX_LOG_BLOCKS } from './rpc-methods';

/** A new block as the service's chain watcher publishes it: in order, none missed, none repeated. */
export interface FollowedBlock {
  number: number;
  hash: string;
}

/** What the subscriptions follow: the explorer's live blocks of a network. */
export type BlockFollower = (network: Network) => AsyncIterable<FollowedBlock>;

/** A `logs` subscription's filter (docs/api.md, "JSON-RPC door"). */
export interface LogFilter {
  address?: string | string[];
  topics?: Array<string | string[] | null>;
}

/** A live newHeads subscriber of a network's one follower: handed each header in order, or the error that ends them all. */
export interface HeadsListener {
  header(header: Record<string, unknown>): void;
  fail(err: unknown): void;
}

/** The live newHeads subscribers of one network and what stops their follower. */
interface HeadsGroup {
  listeners: Set<HeadsListener>;
  stop(): void;
}

/** Fields of a block that are not part of a header (geth's and Besu's newHeads leave them out). */
const NOT_HEADER = ['transactions', 'uncles', 'size', 'totalDifficulty', 'withdrawals'];

/**
 * The door's `eth_subscribe` feeds (docs/api.md, "JSON-RPC door"): `newHeads` and `logs`, driven by
 * the blocks the service's watcher publishes, so they come in order, none missed and none
 * repeated, across a node's restart or failover; with `fromBlock`, first replayed from that block.
 * Each block's header, and each block's logs for one filter, are asked of the node once however
 * many subscribers want them.
 */
export class RpcSubscriptions {
  private readonly headers = new LRUCache<string, Promise<Record<string, unknown>>>({ max: 1024 });
  private readonly blockLogs = new LRUCache<string, Promise<unknown[]>>({ max: 4096 });
  private readonly headGroups = new Map<Network, HeadsGroup>();

  constructor(
    private readonly chains: ChainRegistry,
    private readonly follow: BlockFollower,
  ) {}

  async *newHeads(network: Network, fromBlock?: number): AsyncGenerator<Record<string, unknown>> {
    const live = this.follow(network)[Symbol.asyncIterator]();
    try {
      let next = fromBlock;
      if (fromBlock !== undefined) {
        const head = await this.head(network, fromBlock);
        for (; next! <= head; next!++) yield await this.header(network, `0x${next!.toString(16)}`);
      }
      for (;;) {
        const { value: block, done } = await live.next();
        if (done) return;
        if (next !== undefined && block.number < next) continue;
        // Blocks published while the replay ran are after it: fill whatever lies between.
        if (next !== undefined)
          for (; next < block.number; next++) yield await this.header(network, `0x${next.toString(16)}`);
        yield await this.header(network, block.hash);
        next = block.number + 1;
      }
    } finally {
      await live.return?.();
    }
  }

  /**
   * newHeads without `fromBlock`, for however many subscribers: one follower of the network's
   * blocks hands each header (fetched once) to every listener in one synchronous pass, in order,
   * none missed and none repeated, as newHeads does for one. Returns what ends the listener's part;
   * the follower stops with its last listener.
   */
  listenHeads(network: Network, listener: HeadsListener): () => void {
    let group = this.headGroups.get(network);
    if (!group) {
      const started: HeadsGroup = { listeners: new Set(), stop: () => undefined };
      this.headGroups.set(network, started);
      void this.followHeads(network, started);
      group = started;
    }
    const joined = group;
    joined.listeners.add(listener);
    return () => {
      if (!joined.listeners.delete(listener) || joined.listeners.size > 0) return;
      if (this.headGroups.get(network) === joined) this.headGroups.delete(network);
      joined.stop();
    };
  }

  private async followHeads(network: Network, group: HeadsGroup): Promise<void> {
    const live = this.follow(network)[Symbol.asyncIterator]();
    group.stop = () => void live.return?.()?.catch(() => undefined);
    const hand = (header: Record<string, unknown>) => {
      // A listener that ends leaves the set while it is walked: a Set skips it, as it should.
      for (const listener of group.listeners) listener.header(header);
    };
    try {
      let next: number | undefined;
      for (;;) {
        const { value: block, done } = await live.next();
        if (done || group.listeners.size === 0) return;
        if (next !== undefined && block.number < next) continue;
        if (next !== undefined) for (; next < block.number; next++) hand(await this.header(network, hex(next)));
        hand(await this.header(network, block.hash));
        next = block.number + 1;
      }
    } catch (err) {
      if (this.headGroups.get(network) === group) this.headGroups.delete(network);
      for (const listener of group.listeners) listener.fail(err);
    } finally {
      if (this.headGroups.get(network) === group) this.headGroups.delete(network);
      await live.return?.();
    }
  }

  async *logs(network: Network, filter: LogFilter, fromBlock?: number): AsyncGenerator<unknown> {
    const live = this.follow(network)[Symbol.asyncIterator]();
    try {
      let next = fromBlock;
      if (fromBlock !== undefined) {
        const head = await this.head(network, fromBlock);
        if (fromBlock <= head) {
          for (const log of await this.getLogs(network, { ...filter, fromBlock: hex(fromBlock), toBlock: hex(head) })) {
            yield log;
          }
        }
        next = Math.max(fromBlock, head + 1);
      }
      for (;;) {
        const { value: block, done } = await live.next();
        if (done) return;
        if (next !== undefined && block.number < next) continue;
        if (next !== undefined && next < block.number) {
          const gap = { ...filter, fromBlock: hex(next), toBlock: hex(block.number - 1) };
          for (const log of await this.getLogs(network, gap)) yield log;
        }
        for (const log of await this.logsOf(network, block.hash, filter)) yield log;
        next = block.number + 1;
      }
    } finally {
      await live.return?.();
    }
  }

  /** The node's head, which a replay from `fromBlock` must not be more than 5,000 blocks behind. */
  private async head(network: Network, fromBlock: number): Promise<number> {
    const answer = await this.chains.relay(network, 'eth_blockNumber', []);
    if (!('result' in answer)) throw new AppError('UPSTREAM_RPC_ERROR', `The ${network} node did not tell its head`);
    const head = Number(BigInt(String(answer.result)));
    if (head - fromBlock + 1 > MAX_LOG_BLOCKS) {
      throw new AppError('RATE_LIMITED', `fromBlock may be at most ${MAX_LOG_BLOCKS} blocks behind the head`, {
        limit: MAX_LOG_BLOCKS,
      });
    }
    return head;
  }

  /** A block's header by number (hex) or hash, as the node sends it, without the body. */
  private header(network: Network, id: string): Promise<Record<string, unknown>> {
    const key = `${network}:${id}`;
    let found = this.headers.get(key);
    if (!found) {
      const method = id.length === 66 ? 'eth_getBlockByHash' : 'eth_getBlockByNumber';
      found = this.chains.relay(network, method, [id, false]).then((answer) => {
        if (!('result' in answer) || typeof answer.result !== 'object' || answer.result === null) {
          throw new AppError('UPSTREAM_RPC_ERROR', `The ${network} node did not send block ${id}`);
        }
        const header = { ...(answer.result as Record<string, unknown>) };
        for (const field of NOT_HEADER) delete header[field];
        return header;
      });
      found.catch(() => this.headers.delete(key));
      this.headers.set(key, found);
    }
    return found;
  }

  /** One block's logs for one filter, asked once for every subscriber with that filter. */
  private logsOf(network: Network, blockHash: string, filter: LogFilter): Promise<unknown[]> {
    const key = `${network}:${blockHash}:${JSON.stringify(filter)}`;
    let found = this.blockLogs.get(key);
    if (!found) {
      found = this.getLogs(network, { ...filter, blockHash });
      found.catch(() => this.blockLogs.delete(key));
      this.blockLogs.set(key, found);
    }
    return found;
  }

  private async getLogs(network: Network, filter: Record<string, unknown>): Promise<unknown[]> {
    const answer = await this.chains.relay(network, 'eth_getLogs', [filter]);
    if (!('result' in answer) || !Array.isArray(answer.result)) {
      throw new AppError('UPSTREAM_RPC_ERROR', `The ${network} node did not send the logs`);
    }
    return answer.result;
  }
}

const hex = (n: number) => `0x${n.toString(16)}`;
