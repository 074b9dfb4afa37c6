import type { JsonRpcProvider } from 'ethers';
import type { ChainRegistry } from '../../../chain/chain-registry';
import type { HeadListener, HeadSubscription } from '../../../chain/head-subscription';
import type { Network } from '../../../kernel/network';
import { AppError, isAppError } from '../../../kernel/errors/app-error';
import { hexToNumber, type RpcBlock, type RpcReceipt, type RpcTransaction } from '../views/sources';

/** A block with a receipt for each of its transactions, in order: what the indexer stores. */
export interface FullBlock {
  block: RpcBlock<RpcTransaction>;
  receipts: RpcReceipt[];
}

const hex = (n: number) => `0x${n.toString(16)}`;

/**
 * Requests in flight per call of the reader. Enough to keep a node busy (the provider may also group
 * them into JSON-RPC batches), few enough for a node's connection limit (Besu: 80 by default).
 */
/**
 * Bulk reads in flight per network, per budget: the indexer's and the address scans' are separate,
 * so scans never queue the indexer out, and together they stay within the default connection cap (16).
 */
const IN_FLIGHT: Record<ReadBudget, number> = { index: 12, scan: 4 };

/** One attempt within 2 s: for reads a request waits on, which a node that is down must not hold up. */
export const NODE_QUICK = { attempts: 1, timeoutMs: 2_000 } as const;

/** Whose bulk reads: the block indexer's (and backfills), or the on-demand address scans. */
export type ReadBudget = 'index' | 'scan';
/** eth_getBlockReceipts unsupported: re-probe after this long (a node may be upgraded). */
const REPROBE_MS = 10 * 60_000;

/** A counting semaphore: at most `size` tasks run at once, the others wait in order. */
class Slots {
  private readonly waiting: Array<() => void> = [];

  constructor(private free: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/** A JSON-RPC error answer: the node is up but does not do what was asked. */
export function rpcErrorCode(err: unknown): number | undefined {
  const e = err as { error?: { code?: unknown }; info?: { error?: { code?: unknown } } } | null;
  const code = e?.info?.error?.code ?? e?.error?.code;
  return typeof code === 'number' ? code : undefined;
}

/** Method not found (-32601), not enabled (Besu -32604), or refused by ethers as unsupported. */
export function isMethodUnsupported(err: unknown): boolean {
  const code = rpcErrorCode(err);
  if (code === -32601 || code === -32604) return true;
  return (err as { code?: unknown } | null)?.code === 'UNSUPPORTED_OPERATION';
}

/** The node answered, with a JSON-RPC error (as opposed to not answering at all). */
export function answeredWithError(err: unknown): boolean {
  return isMethodUnsupported(err) || (isAppError(err) && typeof err.details?.rpcCode === 'number');
}

/**
 * Reads the chain for the explorer through the chain registry (its retries, timeouts and chain id
 * checks), sending many requests at once so they travel as JSON-RPC batches.
 */
export class ChainReader {
  private readonly blockReceiptsUnsupportedAt = new Map<Network, number>();
  private readonly slots = new Map<string, Slots>();

  constructor(private readonly chains: ChainRegistry) {}

  /** The network's new heads as its nodes announce them over WebSocket; null without `*_WS_URL`. */
  followHeads(network: Network, listener: HeadListener): HeadSubscription | null {
    return this.chains.followHeads(network, listener);
  }

  isAvailable(network: Network): boolean {
    return this.chains.isAvailable(network);
  }

  /** Whether the node answers now (2 s); quiet, unlike failing reads, so it suits polling a node that is down. */
  async isHealthy(network: Network): Promise<boolean> {
    return (await this.chains.health(network)).healthy;
  }

  /** One JSON-RPC call with the registry's retries; node errors become UPSTREAM_RPC_ERROR without details. */
  async call<T>(
    network: Network,
    method: string,
    params: unknown[],
    opts?: { attempts?: number; timeoutMs?: number },
  ): Promise<T> {
    try {
      return await this.chains.withRetry(network, (p: JsonRpcProvider) => p.send(method, params) as Promise<T>, opts);
    } catch (err) {
      if (isAppError(err) || isMethodUnsupported(err)) throw err;
      throw new AppError('UPSTREAM_RPC_ERROR', `The ${network} node could not answer ${method}`, {
        network,
        ...(rpcErrorCode(err) !== undefined ? { rpcCode: rpcErrorCode(err) } : {}),
      });
    }
  }

  async headNumber(network: Network, opts?: { attempts?: number; timeoutMs?: number }): Promise<number> {
    return hexToNumber(await this.call<string>(network, 'eth_blockNumber', [], opts));
  }

  /**
   * Runs bulk reads through the network's slots of one budget (first come first served within it);
   * results in the order of the calls. Single reads (head, one transaction) do not queue behind them.
   */
  private parallel<T>(network: Network, calls: Array<() => Promise<T>>, budget: ReadBudget = 'index'): Promise<T[]> {
    const key = `${network}:${budget}`;
    let slots = this.slots.get(key);
    if (!slots) this.slots.set(key, (slots = new Slots(IN_FLIGHT[budget])));
    return Promise.all(calls.map((c) => slots.run(c)));
  }

  blocks(
    network: Network,
    numbers: number[],
    full: true,
    budget?: ReadBudget,
  ): Promise<Array<RpcBlock<RpcTransaction> | null>>;
  blocks(
    network: Network,
    numbers: number[],
    full: false,
    budget?: ReadBudget,
  ): Promise<Array<RpcBlock<string> | null>>;
  blocks(
    network: Network,
    numbers: number[],
    full: boolean,
    budget: ReadBudget = 'index',
  ): Promise<Array<RpcBlock | null>> {
    return this.parallel(
      network,
      numbers.map((n) => () => this.call<RpcBlock | null>(network, 'eth_getBlockByNumber', [hex(n), full])),
      budget,
    );
  }

  async latestBlock(network: Network, opts?: { attempts?: number; timeoutMs?: number }): Promise<RpcBlock<string>> {
    const block = await this.call<RpcBlock<string> | null>(network, 'eth_getBlockByNumber', ['latest', false], opts);
    if (!block) throw new AppError('UPSTREAM_RPC_ERROR', `The ${network} node returned no latest block`, { network });
    return block;
  }

  blockByHash(network: Network, hash: string): Promise<RpcBlock<string> | null> {
    return this.call<RpcBlock<string> | null>(network, 'eth_getBlockByHash', [hash, false]);
  }

  transaction(network: Network, hash: string): Promise<RpcTransaction | null> {
    return this.call<RpcTransaction | null>(network, 'eth_getTransactionByHash', [hash]);
  }

  receipt(network: Network, hash: string): Promise<RpcReceipt | null> {
    return this.call<RpcReceipt | null>(network, 'eth_getTransactionReceipt', [hash]);
  }

  receiptsOf(network: Network, hashes: string[], budget: ReadBudget = 'index'): Promise<Array<RpcReceipt | null>> {
    return this.parallel(
      network,
      hashes.map((h) => () => this.receipt(network, h)),
      budget,
    );
  }

  /**
   * Blocks `from..to` with full transactions and their receipts: eth_getBlockReceipts (one call per
   * block) where the node has it, else one eth_getTransactionReceipt per transaction. A block the
   * node does not have yet ends the list early.
   */
  async fullBlocks(network: Network, from: number, to: number): Promise<FullBlock[]> {
    const numbers = Array.from({ length: to - from + 1 }, (_, i) => from + i);
    const useBlockReceipts = Date.now() - (this.blockReceiptsUnsupportedAt.get(network) ?? -Infinity) > REPROBE_MS;
    const [blocks, blockReceipts] = await Promise.all([
      this.blocks(network, numbers, true),
      useBlockReceipts ? this.blockReceipts(network, numbers) : Promise.resolve(null),
    ]);
    const present: Array<RpcBlock<RpcTransaction>> = [];
    for (const b of blocks) {
      if (!b) break;
      present.push(b);
    }
    let receipts: RpcReceipt[][];
    if (blockReceipts) {
      receipts = present.map((b, i) => blockReceipts[i] ?? []);
    } else {
      const flat = await this.receiptsOf(
        network,
        present.flatMap((b) => b.transactions.map((t) => t.hash)),
      );
      let k = 0;
      receipts = present.map((b) => b.transactions.map(() => flat[k++]!));
    }
    return present.map((block, i) => {
      const r = receipts[i]!;
      const complete =
        r.length === block.transactions.length &&
        r.every((x, j) => x && x.transactionHash.toLowerCase() === block.transactions[j]!.hash.toLowerCase());
      if (!complete) {
        throw new AppError('UPSTREAM_RPC_ERROR', `The ${network} node returned incomplete receipts`, {
          network,
          block: hexToNumber(block.number),
        });
      }
      return { block, receipts: r };
    });
  }

  /** Receipts per block by eth_getBlockReceipts; null when the node does not offer it. */
  private async blockReceipts(network: Network, numbers: number[]): Promise<Array<RpcReceipt[] | null> | null> {
    try {
      return await this.parallel(
        network,
        numbers.map((n) => () => this.call<RpcReceipt[] | null>(network, 'eth_getBlockReceipts', [hex(n)])),
      );
    } catch (err) {
      if (!isMethodUnsupported(err)) throw err;
      this.blockReceiptsUnsupportedAt.set(network, Date.now());
      return null;
    }
  }

  /**
   * The validators the node names: Besu's qbft_getValidatorsByBlockNumber, else GoQuorum's
   * istanbul_getValidators; null when the node offers neither.
   */
  async qbftValidators(network: Network, blockNumber: number): Promise<string[] | null> {
    for (const method of ['qbft_getValidatorsByBlockNumber', 'istanbul_getValidators']) {
      try {
        const v = await this.call<unknown>(network, method, [hex(blockNumber)], { attempts: 1, timeoutMs: 2_000 });
        if (Array.isArray(v) && v.every((a) => typeof a === 'string')) return v as string[];
      } catch (err) {
        if (!answeredWithError(err)) throw err;
      }
    }
    return null;
  }
}
