import { CHAIN_IDS, type Network } from '../../../../kernel/network';
import type { NetworkName } from '../../../../kernel/network-name';
import type { BlockIndex } from '../../runtime/block-index';
import { NODE_QUICK, type ChainReader } from '../../runtime/chain-reader';
import type { ExplorerRuntime } from '../../runtime/explorer-runtime';
import { blockFromRpc, blockFromStored, summaryFromRpc, summaryFromStored } from '../../views/blocks.views';
import { hexToNumber, type RpcBlock, type StoredBlock } from '../../views/sources';
import { boundedInt, explorerNetwork, LIMITS, parseBlockId } from '../explorer-input';
import type { BlockLookup, BlockSummary, LiveBlocks } from '../../views/blocks.types';

/** The watcher's latest block stands in for eth_blockNumber while younger than this. */
const HEAD_FRESH_MS = 1_500;

/** Blocks: the latest ones, one by number, hash or `latest`, and the live feed of new ones. */
export class BlocksService {
  constructor(
    private readonly reader: ChainReader,
    private readonly index: BlockIndex,
    private readonly runtime: ExplorerRuntime,
  ) {}

  /** The liveBlocks subscription: every new block of the network, in order, from this process's watcher. */
  subscribeLiveBlocks(networkArg: NetworkName | null | undefined): AsyncIterable<BlockSummary> {
    return this.runtime.subscribeLiveBlocks(explorerNetwork(networkArg));
  }

  async liveBlocks(
    networkArg: NetworkName | null | undefined,
    limitArg: number | null | undefined,
  ): Promise<LiveBlocks> {
    const network = explorerNetwork(networkArg);
    const limit = boundedInt('limit', limitArg, LIMITS.liveBlocks);
    const head = await this.headOrLastKnown(network);
    const blocks = head === null ? [] : await this.summaries(network, Math.max(0, head - limit + 1), head);
    return { network: network as NetworkName, chainId: CHAIN_IDS[network], blocks };
  }

  async block(idArg: string, networkArg: NetworkName | null | undefined): Promise<BlockLookup> {
    const { index, reader } = this;
    const network = explorerNetwork(networkArg);
    const id = parseBlockId(idArg);
    let stored: StoredBlock | null = null;
    let number: number | null = null;
    if (id.kind === 'hash') {
      stored = await index.blockByHash(network, id.hash);
      if (!stored) {
        const block = await reader.blockByHash(network, id.hash);
        return block ? { found: true, block: blockFromRpc(block) } : { found: false, block: null };
      }
    } else {
      number = id.kind === 'number' ? id.number : await this.headOrLastKnown(network);
      if (number === null) return { found: false, block: null };
      stored = await index.blockByNumber(network, number);
    }
    if (stored)
      return {
        found: true,
        block: blockFromStored(stored, await index.transactionHashes(network, stored.number)),
      };
    const [block] = await reader.blocks(network, [number!], false);
    return block ? { found: true, block: blockFromRpc(block) } : { found: false, block: null };
  }

  /** The node's head, or null when the node does not answer. */
  private async nodeHead(network: Network): Promise<number | null> {
    const known = this.runtime.latestKnown(network);
    if (known && Date.now() - known.seenAt < HEAD_FRESH_MS) return known.summary.number;
    try {
      return await this.reader.headNumber(network, NODE_QUICK);
    } catch {
      return null;
    }
  }

  /** The head for reads: the node's, else the last one seen, else the index's last block. */
  private async headOrLastKnown(network: Network): Promise<number | null> {
    const head = await this.nodeHead(network);
    if (head !== null) return head;
    const known = this.runtime.latestKnown(network);
    if (known) return known.summary.number;
    return (await this.index.state(network))?.lastBlock ?? null;
  }

  /** Blocks by number from the index, the rest from the node; missing ones left out. */
  private async summaries(network: Network, from: number, to: number): Promise<BlockSummary[]> {
    const stored = await this.index.blocksBetween(network, from, to);
    const byNumber = new Map<number, BlockSummary>(stored.map((b) => [b.number, summaryFromStored(b)]));
    const missing: number[] = [];
    for (let n = to; n >= from; n--) if (!byNumber.has(n)) missing.push(n);
    if (missing.length > 0) {
      const fetched = await this.reader.blocks(network, missing, false).catch(() => [] as Array<RpcBlock | null>);
      for (const block of fetched) if (block) byNumber.set(hexToNumber(block.number), summaryFromRpc(block));
    }
    const out: BlockSummary[] = [];
    for (let n = to; n >= from; n--) {
      const b = byNumber.get(n);
      if (b) out.push(b);
    }
    return out;
  }
}
