import { parseAddress } from '../../kernel/address';
import { randomUUID } from 'node:crypto';
import { getCreateAddress } from 'ethers';
import type { DataSource } from 'typeorm';
import type { ChainRegistry } from '../../chain/chain-registry';
import { CHAIN_IDS, NETWORKS, type Network } from '../../config';
import { AppError } from '../../errors/app-error';
import type { Logger } from '../../logger';
import type { NetworkName } from '../../kernel/network-name';
import type { EventBus } from '../../kernel/event-bus';
import { BlockIndex, type StoredActivity, type StoredBlock } from './block-index';
import { boundedFeed } from './bounded-feed';
import {
  ChainReader,
  hexToDecimal,
  hexToNumber,
  type RpcBlock,
  type RpcReceipt,
  type RpcTransaction,
} from './chain-reader';
import { ChainWatcher } from './chain-watcher';
import { ExplorerIndexer } from './explorer-indexer';
import { boundedInt, explorerNetwork, LIMITS, parseBlockId, parseHash, parseSearchQuery } from './explorer-input';
import {
  ActivityDirection,
  ActivityKind,
  SearchResultType,
  TransactionStatus,
  type AddressActivity,
  type AddressLookup,
  type BlockLookup,
  type BlockSummary,
  type LastBlock,
  type LiveBlocks,
  type NetworkStatus,
  type SearchResult,
  type SearchResults,
  type Transaction,
  type TransactionLookup,
  type VerifiedAssets,
} from './explorer.types';
import {
  blockFromRpc,
  blockFromStored,
  checksum,
  checksumOrNull,
  summaryFromRpc,
  summaryFromStored,
} from './explorer-views';
import { decodeCall, functionName } from './method-decoder';
import { PortalContracts, type PortalContract } from './portal-contracts';
import { validatorsFromExtraData } from './qbft-extra-data';

export interface ExplorerConfig {
  /** Whether this instance may index (INDEXER_ENABLED); it indexes a network only while it holds its lock. */
  indexerEnabled: boolean;
  /** Where a new index starts (INDEXER_START_BLOCK). */
  indexerStartBlock: number;
  /** Networks served by a dev chain this service started: their index follows the chain if it loses blocks. */
  localNetworks?: readonly Network[];
}

/** A block summary queued for a subscriber that does not read: more ends its subscription. */
const MAX_QUEUED_BLOCKS = 256;
/** The index serves address activity while it is at most this many blocks behind the head. */
const MAX_INDEX_LAG_FOR_ACTIVITY = 10;
/** Blocks read in the first round of an RPC scan; each round reads twice as many, up to SCAN_CHUNK_MAX. */
const SCAN_CHUNK_FIRST = 50;
const SCAN_CHUNK_MAX = 800;
/** The watcher's latest block stands in for eth_blockNumber while younger than this. */
const HEAD_FRESH_MS = 1_500;
/** Re-ask a node that lacked qbft_getValidatorsByBlockNumber after this long. */
const QBFT_API_REPROBE_MS = 10 * 60_000;
const BLOCK_TIME_WINDOW = 100;
const SEARCH_LIMIT = 25;
const NODE_QUICK = { attempts: 1, timeoutMs: 2_000 };

const statusOf = (code: number): TransactionStatus =>
  code === 1 ? TransactionStatus.success : TransactionStatus.reverted;

function directionOf(tx: { from: string; to: string | null }, address: string): ActivityDirection {
  const self = address.toLowerCase();
  if (tx.to === null) return ActivityDirection.create;
  const from = tx.from.toLowerCase();
  const to = tx.to.toLowerCase();
  if (from === self && to === self) return ActivityDirection.self;
  return from === self ? ActivityDirection.out : ActivityDirection.in;
}

/**
 * The public explorer: block index (indexers), live blocks (watchers) and every read endpoint.
 * Reads come from the index when it has the data and from the node otherwise.
 */
export class ExplorerService {
  readonly reader: ChainReader;
  readonly index: BlockIndex;
  readonly watchers: Record<Network, ChainWatcher>;
  readonly indexers: Partial<Record<Network, ExplorerIndexer>> = {};
  private readonly portal: PortalContracts;
  /** Scopes this instance's live-block topics, so that two apps in one process never mix their chains. */
  private readonly feedId = randomUUID();
  private readonly lastValidators = new Map<Network, string[]>();
  private readonly qbftApiMissingAt = new Map<Network, number>();
  private readonly log: Logger;

  constructor(
    private readonly ds: DataSource,
    private readonly chains: ChainRegistry,
    private readonly config: ExplorerConfig,
    private readonly bus: EventBus,
    logger: Logger,
  ) {
    this.log = logger.child({ component: 'explorer' });
    this.reader = new ChainReader(chains);
    this.index = new BlockIndex(ds);
    this.portal = new PortalContracts(ds, this.reader, this.log);
    const watcher = (network: Network) =>
      new ChainWatcher(
        network,
        this.reader,
        (block) => this.bus.publish('LIVE_BLOCKS', this.liveTopic(network), block),
        logger,
      );
    this.watchers = { testnet: watcher('testnet'), mainnet: watcher('mainnet') };
  }

  /** Starts the watchers and, when enabled, the indexers; all in the background. */
  start(): void {
    for (const network of NETWORKS) {
      this.watchers[network].start();
      if (!this.config.indexerEnabled) continue;
      const indexer = new ExplorerIndexer({
        network,
        ds: this.ds,
        index: this.index,
        reader: this.reader,
        watcher: this.watchers[network],
        logger: this.log,
        startBlock: this.config.indexerStartBlock,
        localChain: this.config.localNetworks?.includes(network) ?? false,
      });
      this.indexers[network] = indexer;
      indexer.start();
    }
  }

  async stop(): Promise<void> {
    await Promise.all(Object.values(this.indexers).map((i) => i.stop()));
    await Promise.all(NETWORKS.map((n) => this.watchers[n].stop()));
  }

  liveTopic(network: Network): string {
    return `${this.feedId}:${network}`;
  }

  /** The liveBlocks subscription: every new block of the network, in order, from this process's watcher. */
  subscribeLiveBlocks(networkArg: NetworkName | null | undefined): AsyncIterable<BlockSummary> {
    const network = explorerNetwork(networkArg);
    const release = this.watchers[network].retain();
    // This service is the only publisher of LIVE_BLOCKS, and it publishes BlockSummary views.
    const published = this.bus.subscribe('LIVE_BLOCKS', this.liveTopic(network)) as AsyncIterable<BlockSummary>;
    return boundedFeed(published, {
      max: MAX_QUEUED_BLOCKS,
      // graphql-ws reports an error of the event stream with its message and `extensions` only.
      overflowError: () =>
        Object.assign(
          new AppError(
            'RATE_LIMITED',
            `The subscriber fell more than ${MAX_QUEUED_BLOCKS} blocks behind and was dropped; subscribe again`,
          ),
          { extensions: { code: 'RATE_LIMITED' } },
        ),
      onEnd: release,
    });
  }

  /** The node's head, or null when the node does not answer. */
  private async nodeHead(network: Network): Promise<number | null> {
    const known = this.watchers[network].latestKnown();
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
    const known = this.watchers[network].latestKnown();
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

  async networkStatus(networkArg: NetworkName | null | undefined): Promise<NetworkStatus> {
    const network = explorerNetwork(networkArg);
    const [health, state] = await Promise.all([
      this.reader.isAvailable(network) ? this.chains.health(network) : null,
      this.index.state(network),
    ]);
    let lastBlock: LastBlock | null = null;
    let validators: string[] = [];
    let averageBlockTimeSeconds: number | null = null;
    let healthy = health?.healthy ?? false;
    let error = health?.error ?? (health ? null : 'not available');
    if (healthy) {
      try {
        const latest = await this.reader.latestBlock(network, NODE_QUICK);
        const summary = summaryFromRpc(latest);
        lastBlock = { number: summary.number, hash: summary.hash, timestamp: summary.timestamp };
        [validators, averageBlockTimeSeconds] = await Promise.all([
          this.validators(network, summary.number, latest.extraData ?? '0x', summary.proposer),
          this.averageBlockTime(network, summary.number, summary.timestamp),
        ]);
      } catch (err) {
        // The node went away between the health check and the reads.
        healthy = false;
        error = err instanceof Error ? err.message : 'node error';
        lastBlock = null;
      }
    }
    if (!healthy) {
      // The node is down: the last block this process saw, else the index's last block.
      const known = this.watchers[network].latestKnown();
      const stored = !known && state ? await this.index.blockByNumber(network, state.lastBlock) : null;
      const last = known ? known.summary : stored ? summaryFromStored(stored) : null;
      if (last) {
        lastBlock = { number: last.number, hash: last.hash, timestamp: last.timestamp };
        validators =
          this.lastValidators.get(network) ??
          this.validatorsOffline(known?.extraData ?? stored?.extraData ?? '0x', last.proposer);
        averageBlockTimeSeconds = await this.averageBlockTimeFromIndex(network, last.number, last.timestamp);
      }
    }
    const lastIndexedBlock = state?.lastBlock ?? null;
    const headForLag = lastBlock?.number ?? null;
    return {
      network: network as NetworkName,
      chainId: CHAIN_IDS[network],
      consensus: 'qbft',
      lastBlock,
      validators,
      validatorCount: validators.length,
      averageBlockTimeSeconds,
      rpc: {
        healthy,
        latencyMs: healthy ? (health?.latencyMs ?? null) : null,
        error: healthy ? null : (error ?? 'node error'),
      },
      indexer: {
        lastIndexedBlock,
        lagBlocks: lastIndexedBlock !== null && headForLag !== null ? Math.max(0, headForLag - lastIndexedBlock) : null,
        haltedReason: state?.haltedReason ?? null,
      },
    };
  }

  /** Validators: qbft_getValidatorsByBlockNumber or istanbul_getValidators, else the extraData's list, else the proposer. */
  private async validators(
    network: Network,
    blockNumber: number,
    extraData: string,
    proposer: string,
  ): Promise<string[]> {
    let validators: string[] | null = null;
    const missingAt = this.qbftApiMissingAt.get(network);
    if (missingAt === undefined || Date.now() - missingAt > QBFT_API_REPROBE_MS) {
      const fromApi = await this.reader.qbftValidators(network, blockNumber);
      if (fromApi === null) this.qbftApiMissingAt.set(network, Date.now());
      else {
        this.qbftApiMissingAt.delete(network);
        validators = fromApi.map(checksum);
      }
    }
    validators ??= this.validatorsOffline(extraData, proposer);
    this.lastValidators.set(network, validators);
    return validators;
  }

  private validatorsOffline(extraData: string, proposer: string): string[] {
    const decoded = validatorsFromExtraData(extraData);
    return decoded && decoded.length > 0 ? decoded : [proposer];
  }

  /** Mean time between the last 100 blocks (fewer on a young chain); null for a chain of one block. */
  private async averageBlockTime(network: Network, head: number, headTimestamp: number): Promise<number | null> {
    const span = Math.min(BLOCK_TIME_WINDOW, head);
    if (span <= 0) return null;
    const stored = await this.index.blockByNumber(network, head - span);
    let older = stored?.timestamp;
    if (older === undefined) {
      const [block] = await this.reader.blocks(network, [head - span], false);
      if (!block) return null;
      older = hexToNumber(block.timestamp);
    }
    return Math.round(((headTimestamp - older) / span) * 1000) / 1000;
  }

  private async averageBlockTimeFromIndex(
    network: Network,
    head: number,
    headTimestamp: number,
  ): Promise<number | null> {
    const span = Math.min(BLOCK_TIME_WINDOW, head);
    if (span <= 0) return null;
    const older = await this.index.blockByNumber(network, head - span);
    return older ? Math.round(((headTimestamp - older.timestamp) / span) * 1000) / 1000 : null;
  }

  async block(idArg: string, networkArg: NetworkName | null | undefined): Promise<BlockLookup> {
    const network = explorerNetwork(networkArg);
    const id = parseBlockId(idArg);
    let stored: StoredBlock | null = null;
    let number: number | null = null;
    if (id.kind === 'hash') {
      stored = await this.index.blockByHash(network, id.hash);
      if (!stored) {
        const block = await this.reader.blockByHash(network, id.hash);
        return block ? { found: true, block: blockFromRpc(block) } : { found: false, block: null };
      }
    } else {
      number = id.kind === 'number' ? id.number : await this.headOrLastKnown(network);
      if (number === null) return { found: false, block: null };
      stored = await this.index.blockByNumber(network, number);
    }
    if (stored)
      return {
        found: true,
        block: blockFromStored(stored, await this.index.transactionHashes(network, stored.number)),
      };
    const [block] = await this.reader.blocks(network, [number!], false);
    return block ? { found: true, block: blockFromRpc(block) } : { found: false, block: null };
  }

  async transaction(hashArg: string, networkArg: NetworkName | null | undefined): Promise<TransactionLookup> {
    const network = explorerNetwork(networkArg);
    const hash = parseHash('hash', hashArg);
    const stored = await this.index.transaction(network, hash);
    let tx: Transaction;
    if (stored) {
      const logs = await this.index.logs(network, stored.blockNumber, hash);
      tx = {
        hash: stored.hash,
        blockNumber: stored.blockNumber,
        blockHash: stored.blockHash,
        transactionIndex: stored.transactionIndex,
        timestamp: stored.timestamp,
        from: checksum(stored.from),
        to: checksumOrNull(stored.to),
        contractAddress: checksumOrNull(stored.contractAddress),
        value: stored.value,
        nonce: stored.nonce,
        gasLimit: stored.gasLimit,
        gasPrice: stored.gasPrice,
        gasUsed: stored.gasUsed,
        status: statusOf(stored.status),
        input: stored.input,
        logs: logs.map((l) => ({ address: checksum(l.address), topics: l.topics, data: l.data, logIndex: l.logIndex })),
        method: null,
      };
    } else {
      const fromNode = await this.transactionFromNode(network, hash);
      if (!fromNode) return { found: false, transaction: null };
      tx = fromNode;
    }
    if (tx.to) {
      const contract = (await this.portal.at(network, [tx.to])).get(tx.to.toLowerCase());
      if (contract) tx.method = decodeCall(contract.abi, tx.input);
    }
    return { found: true, transaction: tx };
  }

  private async transactionFromNode(network: Network, hash: string): Promise<Transaction | null> {
    const [raw, receipt] = await Promise.all([
      this.reader.transaction(network, hash),
      this.reader.receipt(network, hash),
    ]);
    if (!raw) return null;
    const blockNumber = raw.blockNumber ? hexToNumber(raw.blockNumber) : null;
    const block =
      blockNumber !== null && receipt ? ((await this.reader.blocks(network, [blockNumber], false))[0] ?? null) : null;
    const mined = blockNumber !== null && receipt !== null;
    return {
      hash: raw.hash.toLowerCase(),
      blockNumber: mined ? blockNumber : null,
      blockHash: mined ? (raw.blockHash?.toLowerCase() ?? null) : null,
      transactionIndex: mined && raw.transactionIndex ? hexToNumber(raw.transactionIndex) : null,
      timestamp: block ? hexToNumber(block.timestamp) : null,
      from: checksum(raw.from),
      to: checksumOrNull(raw.to),
      contractAddress: checksumOrNull(receipt?.contractAddress),
      value: hexToDecimal(raw.value),
      nonce: hexToNumber(raw.nonce),
      gasLimit: hexToDecimal(raw.gas),
      gasPrice: hexToDecimal(receipt?.effectiveGasPrice ?? raw.gasPrice),
      gasUsed: receipt ? hexToDecimal(receipt.gasUsed) : null,
      status: !mined
        ? TransactionStatus.pending
        : receipt.status === undefined || BigInt(receipt.status) === 1n
          ? TransactionStatus.success
          : TransactionStatus.reverted,
      input: raw.input ?? '0x',
      logs: (receipt?.logs ?? []).map((l) => ({
        address: checksum(l.address),
        topics: l.topics.map((t) => t.toLowerCase()),
        data: l.data,
        logIndex: hexToNumber(l.logIndex),
      })),
      method: null,
    };
  }

  async address(
    addressArg: string,
    networkArg: NetworkName | null | undefined,
    limitArg: number | null | undefined,
    scanArg: number | null | undefined,
  ): Promise<AddressLookup> {
    const network = explorerNetwork(networkArg);
    const address = parseAddress(addressArg, 'address');
    const limit = boundedInt('limit', limitArg, LIMITS.activity);
    const scan = scanArg === null || scanArg === undefined ? null : boundedInt('scan', scanArg, LIMITS.scan);

    const [balance, nonce, code, head, state] = await Promise.all([
      this.reader.call<string>(network, 'eth_getBalance', [address, 'latest']),
      this.reader.call<string>(network, 'eth_getTransactionCount', [address, 'latest']),
      this.reader.call<string>(network, 'eth_getCode', [address, 'latest']),
      this.reader.headNumber(network),
      this.index.state(network),
    ]);
    const fresh = state !== null && state.haltedReason === null && head - state.lastBlock <= MAX_INDEX_LAG_FOR_ACTIVITY;
    let rows: StoredActivity[];
    let source: ActivityKind;
    if (scan === null && fresh) {
      rows = await this.index.activity(network, address, limit);
      source = ActivityKind.indexed;
    } else {
      rows = await this.scanActivity(network, address, head, scan ?? LIMITS.scan.default, limit);
      source = ActivityKind.scan;
    }

    const contracts = await this.portal.at(network, [
      address,
      ...new Set(rows.map((r) => r.to).filter((t): t is string => t !== null)),
    ]);
    const activity: AddressActivity[] = rows.map((r) => {
      const target = r.to ? contracts.get(r.to.toLowerCase()) : undefined;
      return {
        txHash: r.hash,
        blockNumber: r.blockNumber,
        timestamp: r.timestamp,
        from: checksum(r.from),
        to: checksumOrNull(r.to),
        value: r.value,
        direction: directionOf(r, address),
        status: statusOf(r.status),
        method: target && r.methodId ? functionName(target.abi, r.methodId) : null,
      };
    });

    const own = contracts.get(address.toLowerCase());
    const codeSize = (code.length - 2) / 2;
    const contract = own ? { id: own.id, name: own.name, verified: await this.isVerified(own, code) } : null;
    const balanceWei = hexToDecimal(balance);
    const nonceNumber = hexToNumber(nonce);
    const found = balanceWei !== '0' || nonceNumber > 0 || codeSize > 0 || activity.length > 0;
    return {
      found,
      info: found ? { address, balanceWei, nonce: nonceNumber, isContract: codeSize > 0, codeSize, contract } : null,
      activity,
      activityKind: activity.length === 0 ? ActivityKind.none : source,
    };
  }

  private async isVerified(contract: PortalContract, code: string): Promise<boolean> {
    return (await this.portal.check(contract, code)).codeMatches;
  }

  /**
   * Address activity from the node: the newest `blocks` blocks, read newest first in rounds of
   * growing rounds, stopping once `limit` transactions are found; receipts only for those.
   */
  private async scanActivity(
    network: Network,
    address: string,
    head: number,
    blocks: number,
    limit: number,
  ): Promise<StoredActivity[]> {
    const self = address.toLowerCase();
    const lowest = Math.max(0, head - blocks + 1);
    const found: Array<{ tx: RpcTransaction; timestamp: number }> = [];
    let to = head;
    let chunk = SCAN_CHUNK_FIRST;
    while (to >= lowest && found.length < limit) {
      const from = Math.max(lowest, to - chunk + 1);
      const numbers = Array.from({ length: to - from + 1 }, (_, i) => to - i);
      // The scan's own budget: a scan never holds the indexer's slots.
      const fetched = await this.reader.blocks(network, numbers, true, 'scan');
      for (const block of fetched) {
        if (!block) continue;
        const timestamp = hexToNumber(block.timestamp);
        for (const tx of [...block.transactions].reverse()) {
          const matches =
            tx.from.toLowerCase() === self ||
            tx.to?.toLowerCase() === self ||
            (tx.to === null && getCreateAddress({ from: tx.from, nonce: BigInt(tx.nonce) }).toLowerCase() === self);
          if (matches) found.push({ tx, timestamp });
        }
      }
      to = from - 1;
      chunk = Math.min(SCAN_CHUNK_MAX, chunk * 2);
    }
    const top = found.slice(0, limit);
    const receipts = await this.reader.receiptsOf(
      network,
      top.map((f) => f.tx.hash),
      'scan',
    );
    return top.map(({ tx, timestamp }, i) => {
      const receipt: RpcReceipt | null = receipts[i] ?? null;
      const input = tx.input ?? '0x';
      return {
        hash: tx.hash.toLowerCase(),
        blockNumber: hexToNumber(tx.blockNumber!),
        transactionIndex: hexToNumber(tx.transactionIndex!),
        timestamp,
        from: tx.from.toLowerCase(),
        to: tx.to ? tx.to.toLowerCase() : null,
        contractAddress: receipt?.contractAddress?.toLowerCase() ?? null,
        value: hexToDecimal(tx.value),
        status: receipt && receipt.status !== undefined && BigInt(receipt.status) !== 1n ? 0 : 1,
        methodId: input.length >= 10 ? input.slice(0, 10).toLowerCase() : null,
      };
    });
  }

  async search(qArg: string, networkArg: NetworkName | null | undefined): Promise<SearchResults> {
    const network = explorerNetwork(networkArg);
    const q = parseSearchQuery(qArg);
    const results: SearchResult[] = [];
    const quietly = <T>(p: Promise<T>): Promise<T | null> => p.catch(() => null);

    if (q.kind === 'number') {
      const stored = await this.index.blockByNumber(network, q.number);
      const block = stored ?? (await quietly(this.reader.blocks(network, [q.number], false)))?.[0] ?? null;
      if (block) results.push({ type: SearchResultType.block, number: q.number, hash: block.hash.toLowerCase() });
    } else if (q.kind === 'hash') {
      const [storedTx, storedBlock] = await Promise.all([
        this.index.transaction(network, q.hash),
        this.index.blockByHash(network, q.hash),
      ]);
      const [nodeTx, nodeBlock] = await Promise.all([
        storedTx ? null : quietly(this.reader.transaction(network, q.hash)),
        storedBlock ? null : quietly(this.reader.blockByHash(network, q.hash)),
      ]);
      if (storedTx) {
        results.push({ type: SearchResultType.transaction, hash: q.hash, blockNumber: storedTx.blockNumber });
      } else if (nodeTx) {
        results.push({
          type: SearchResultType.transaction,
          hash: q.hash,
          blockNumber: nodeTx.blockNumber ? hexToNumber(nodeTx.blockNumber) : null,
        });
      }
      const block = storedBlock ?? (nodeBlock ? { number: hexToNumber(nodeBlock.number) } : null);
      if (block) results.push({ type: SearchResultType.block, number: block.number, hash: q.hash });
    } else if (q.kind === 'address') {
      const [code, created, contracts] = await Promise.all([
        quietly(this.reader.call<string>(network, 'eth_getCode', [q.address, 'latest'], NODE_QUICK)),
        this.index.isCreatedContract(network, q.address),
        this.portal.at(network, [q.address]),
      ]);
      results.push({
        type: SearchResultType.address,
        address: q.address,
        isContract: code !== null ? code.length > 2 : created,
      });
      const contract = contracts.get(q.address.toLowerCase());
      if (contract) results.push(this.contractResult(contract));
    } else {
      const [byName, assets] = await Promise.all([
        this.portal.byNamePrefix(network, q.text, SEARCH_LIMIT),
        network === 'mainnet' ? this.portal.assetsByPrefix(q.text, SEARCH_LIMIT) : Promise.resolve([]),
      ]);
      const seen = new Set<string>();
      for (const c of [...byName, ...assets]) {
        if (seen.has(c.id) || results.length >= SEARCH_LIMIT) continue;
        seen.add(c.id);
        results.push(this.contractResult(c));
      }
    }
    return { query: qArg.trim(), network: network as NetworkName, results };
  }

  private contractResult(c: PortalContract): SearchResult {
    return {
      type: SearchResultType.contract,
      address: c.address,
      contractId: c.id,
      name: c.name,
      network: c.network as NetworkName,
    };
  }

  async recentVerifiedAssets(
    limitArg: number | null | undefined,
    networkArg: NetworkName | null | undefined,
  ): Promise<VerifiedAssets> {
    if (networkArg === 'testnet') {
      throw new AppError('MAINNET_ONLY', 'Verified assets exist on mainnet only', { network: 'testnet' });
    }
    const limit = boundedInt('limit', limitArg, LIMITS.verifiedAssets);
    const assets = await this.portal.recentAssets(limit);
    return { network: 'mainnet' as NetworkName, assets };
  }
}
