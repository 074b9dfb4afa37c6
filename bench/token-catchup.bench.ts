// Token index benchmark: the explorer's indexer catching up from genesis on a token-heavy anvil chain
// (every block an ERC-20, an ERC-721 and an ERC-1155 transaction, ten transfer items: transfers,
// mints, burns, a TransferBatch), end to end from the node to PostgreSQL, against baselines measured
// in the same run: the same indexer on a plain chain of as many blocks (no token logs), the node
// serving what the indexer reads with nothing written, and the node's own eth_getLogs. Then the index
// is compared with the chain (docs/api.md, "Tokens"): every transfer once, balances equal balanceOf.
//
//   npm run bench:token-catchup      (BENCH_BLOCKS=3000 by default; BENCH_PLAIN=0 skips the plain chain)
import 'reflect-metadata';
import os from 'node:os';
import { ChainRegistry } from '../src/chain/chain-registry';
import { startLocalNode, type LocalNode } from '../src/chain/local-node';
import type { DataSource } from 'typeorm';
import { createDataSource, runMigrations } from '../src/database/data-source';
import { createLogger } from '../src/kernel/logger';
import { BlockIndex, ChainReader, ChainWatcher, ExplorerIndexer } from '../src/modules/explorer';
import { createTestDatabase } from '../tests/kit/stack';
import { rpc } from '../tests/kit/json-rpc';
import { generateTokenChain, indexVersusChain } from '../tests/kit/token-chain';
import { generateChain, round } from './explorer-chain';

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 3_000);
const PLAIN = process.env.BENCH_PLAIN !== '0';
const logger = createLogger(process.env.BENCH_LOG_LEVEL ?? 'silent');
const hex = (n: number) => `0x${n.toString(16)}`;
const log = (...args: unknown[]) => console.log(new Date().toISOString().slice(11, 19), ...args);
const load = () => os.loadavg().map((x) => round(x, 1));

/** The index, timing its batch writes: what share of the catch-up is the write (the rest waits on the node). */
class TimedIndex extends BlockIndex {
  writeSeconds = 0;
  override async writeBatch(...args: Parameters<BlockIndex['writeBatch']>): Promise<boolean> {
    const started = performance.now();
    try {
      return await super.writeBatch(...args);
    } finally {
      this.writeSeconds += (performance.now() - started) / 1000;
    }
  }
}

interface CatchUp {
  blocks: number;
  seconds: number;
  blocksPerSecond: number;
  transfers: number;
  transfersPerSecond: number;
  logs: number;
  /** Seconds inside BlockIndex.writeBatch (token items read, one transaction per 100 blocks). */
  writeSeconds: number;
  /** Blocks per second of writing alone. */
  writeBlocksPerSecond: number;
  loadAverage: number[];
}

/** The explorer's indexer from an empty database to the node's head; the database is kept for checks. */
async function catchUp(url: string): Promise<{ result: CatchUp; ds: DataSource; drop(): Promise<void> }> {
  const db = await createTestDatabase();
  const ds = createDataSource(db.url);
  await ds.initialize();
  await runMigrations(ds);
  const other = await startLocalNode({ chainId: 17991, blockTime: 86_400, logger });
  const chains = await ChainRegistry.connect({ mainnet: url, testnet: other.url }, logger);
  const reader = new ChainReader(chains);
  const index = new TimedIndex(ds);
  const head = Number(BigInt((await rpc(url, 'eth_blockNumber')) as string));
  const watcher = new ChainWatcher('mainnet', reader, () => undefined, logger);
  const indexer = new ExplorerIndexer({ network: 'mainnet', ds, index, reader, watcher, logger, startBlock: 0 });
  const started = performance.now();
  indexer.start();
  for (;;) {
    const state = await index.state('mainnet');
    if (state && state.lastBlock >= head) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  const loadAverage = load();
  await indexer.stop();
  chains.destroy();
  await other.stop();
  const [counts] = (await ds.query(
    `SELECT (SELECT count(*) FROM token_transfers)::int AS transfers, (SELECT count(*) FROM explorer_logs)::int AS logs`,
  )) as Array<{ transfers: number; logs: number }>;
  const blocks = head + 1;
  return {
    result: {
      blocks,
      seconds: round(seconds, 2),
      blocksPerSecond: round(blocks / seconds),
      transfers: counts!.transfers,
      transfersPerSecond: round(counts!.transfers / seconds),
      logs: counts!.logs,
      writeSeconds: round(index.writeSeconds, 2),
      writeBlocksPerSecond: round(blocks / index.writeSeconds),
      loadAverage,
    },
    ds,
    async drop() {
      await ds.destroy();
      await db.drop();
    },
  };
}

/** The node alone: blocks and receipts of the whole chain as the indexer reads them (batches of 100, 3 ahead). */
async function fetchOnly(url: string): Promise<{ blocksPerSecond: number; seconds: number }> {
  const other = await startLocalNode({ chainId: 17991, blockTime: 86_400, logger });
  const chains = await ChainRegistry.connect({ mainnet: url, testnet: other.url }, logger);
  const reader = new ChainReader(chains);
  const head = Number(BigInt((await rpc(url, 'eth_blockNumber')) as string));
  const started = performance.now();
  const pending: Array<Promise<unknown>> = [];
  for (let from = 0; from <= head; from += 100) {
    pending.push(reader.fullBlocks('mainnet', from, Math.min(head, from + 99)));
    if (pending.length >= 3) await pending.shift();
  }
  await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  chains.destroy();
  await other.stop();
  return { blocksPerSecond: round((head + 1) / seconds), seconds: round(seconds, 2) };
}

/** The node's eth_getLogs over the whole chain in ranges of 100 blocks, 3 in flight. */
async function getLogsOnly(url: string): Promise<{ blocksPerSecond: number; logs: number }> {
  const head = Number(BigInt((await rpc(url, 'eth_blockNumber')) as string));
  let logs = 0;
  const started = performance.now();
  const pending: Array<Promise<void>> = [];
  for (let from = 0; from <= head; from += 100) {
    pending.push(
      (
        rpc(url, 'eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(Math.min(head, from + 99)) }]) as Promise<
          unknown[]
        >
      ).then((l) => void (logs += l.length)),
    );
    if (pending.length >= 3) await pending.shift();
  }
  await Promise.all(pending);
  return { blocksPerSecond: round((head + 1) / ((performance.now() - started) / 1000)), logs };
}

async function main(): Promise<void> {
  const cpus = os.cpus();
  log(
    `machine: ${cpus.length} cpus (${cpus[0]?.model}), ${round(os.totalmem() / 2 ** 30)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`,
  );
  log(`load average at start: ${load().join(' ')}`);
  const nodes: LocalNode[] = [];
  const results: Record<string, unknown> = { blocks: BLOCKS, date: new Date().toISOString(), loadAtStart: load() };
  try {
    // The token-heavy chain.
    const heavyNode = await startLocalNode({ chainId: 1991, blockTime: 86_400, logger });
    nodes.push(heavyNode);
    let started = Date.now();
    const chain = await generateTokenChain(heavyNode.url, BLOCKS, {
      onProgress: (n) => n % 1000 === 0 && log(`token chain: ${n} blocks`),
    });
    log(`token chain: ${chain.head + 1} blocks in ${(Date.now() - started) / 1000} s`);

    // Baselines of the node on that chain: what the indexer reads, and eth_getLogs.
    const fetched = await fetchOnly(heavyNode.url);
    log(`node, blocks and receipts only (nothing written): ${fetched.blocksPerSecond} blocks/s`);
    const getLogs = await getLogsOnly(heavyNode.url);
    log(`node, eth_getLogs only: ${getLogs.blocksPerSecond} blocks/s (${getLogs.logs} logs)`);

    // The indexer on the token-heavy chain, then the index against the chain.
    const heavy = await catchUp(heavyNode.url);
    log(`indexer, token-heavy chain: ${JSON.stringify(heavy.result)}`);
    started = Date.now();
    const diffs = await indexVersusChain(heavy.ds, heavyNode.url, chain, chain.head);
    log(
      `index vs chain at block ${chain.head}: ${diffs.length === 0 ? 'exact' : diffs.join('; ')} (${(Date.now() - started) / 1000} s)`,
    );
    await heavy.drop();

    // The same indexer on a plain chain of as many blocks (three transactions, one non-token log each).
    let plain: CatchUp | null = null;
    if (PLAIN) {
      const plainNode = await startLocalNode({ chainId: 1991, blockTime: 86_400, logger });
      nodes.push(plainNode);
      started = Date.now();
      await generateChain(plainNode.url, chain.head + 1);
      log(`plain chain: ${chain.head + 1} blocks in ${(Date.now() - started) / 1000} s`);
      const run = await catchUp(plainNode.url);
      plain = run.result;
      log(`indexer, plain chain: ${JSON.stringify(plain)}`);
      await run.drop();
    }
    Object.assign(results, {
      tokenHeavy: heavy.result,
      exact: diffs.length === 0,
      differences: diffs,
      nodeFetchOnly: fetched,
      nodeGetLogsOnly: getLogs,
      plain,
      ratios: {
        tokenHeavyOverPlain: plain ? round(heavy.result.blocksPerSecond / plain.blocksPerSecond, 2) : null,
        tokenHeavyOverFetchOnly: round(heavy.result.blocksPerSecond / fetched.blocksPerSecond, 2),
        tokenHeavyOverGetLogs: round(heavy.result.blocksPerSecond / getLogs.blocksPerSecond, 2),
      },
      loadAtEnd: load(),
    });
  } finally {
    for (const n of nodes) await n.stop();
  }
  console.log(JSON.stringify(results, null, 2));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
