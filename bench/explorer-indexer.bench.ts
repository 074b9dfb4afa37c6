// Explorer benchmark 1: indexer catch-up speed on a generated chain (against a naive row-at-a-time
// indexer measured in the same run), and `address` activity latency from the index versus an RPC
// scan, through the running service.
//
//   npm run build && node dist/bench/explorer-indexer.bench.js      (BENCH_BLOCKS=20000 by default)
import 'reflect-metadata';
import os from 'node:os';
import type { DataSource, QueryRunner } from 'typeorm';
import { ChainRegistry } from '../src/chain/chain-registry';
import { startLocalNode } from '../src/chain/local-node';
import { createDataSource, runMigrations } from '../src/database/data-source';
import { createLogger } from '../src/kernel/logger';
import {
  BlockIndex,
  ChainReader,
  ChainWatcher,
  ExplorerIndexer,
  hexToDecimal,
  hexToNumber,
  type RpcReceipt,
} from '../src/modules/explorer';
import { serviceEnv, spawnService } from '../tests/kit/process';
import { createTestDatabase } from '../tests/kit/stack';
import { generateChain, HOT, percentile, QUIET, round, rpc } from './explorer-chain';

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 20_000);
const BASELINE_BLOCKS = Number(process.env.BENCH_BASELINE_BLOCKS ?? 1_000);
const logger = createLogger(process.env.BENCH_LOG_LEVEL ?? 'silent');
const hex = (n: number) => `0x${n.toString(16)}`;
const log = (...args: unknown[]) => console.log(new Date().toISOString().slice(11, 19), ...args);

/** The obvious indexer: one block, then one receipt per transaction, then one INSERT per row. */
async function naiveIndex(chains: ChainRegistry, runner: QueryRunner, from: number, to: number): Promise<void> {
  const provider = chains.provider('mainnet');
  for (let n = from; n <= to; n++) {
    const block = await provider.send('eth_getBlockByNumber', [hex(n), true]);
    const receipts: RpcReceipt[] = [];
    for (const tx of block.transactions) receipts.push(await provider.send('eth_getTransactionReceipt', [tx.hash]));
    await runner.startTransaction();
    await runner.query(
      `INSERT INTO explorer_blocks (network, number, hash, parent_hash, timestamp, miner, transaction_count, gas_used,
         gas_limit, extra_data) VALUES ('mainnet', $1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
      [
        n,
        block.hash,
        block.parentHash,
        hexToNumber(block.timestamp),
        block.miner,
        block.transactions.length,
        hexToDecimal(block.gasUsed),
        hexToDecimal(block.gasLimit),
        block.extraData,
      ],
    );
    for (const [i, tx] of (block.transactions as Array<Record<string, string>>).entries()) {
      const r = receipts[i]!;
      await runner.query(
        `INSERT INTO explorer_transactions (network, hash, block_number, transaction_index, timestamp, from_address,
           to_address, contract_address, value, nonce, gas_limit, gas_price, gas_used, status, method_id, input)
         VALUES ('mainnet', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING`,
        [
          tx.hash,
          n,
          i,
          hexToNumber(block.timestamp),
          tx.from!.toLowerCase(),
          tx.to?.toLowerCase() ?? null,
          r.contractAddress,
          hexToDecimal(tx.value),
          hexToNumber(tx.nonce!),
          hexToDecimal(tx.gas),
          hexToDecimal(r.effectiveGasPrice),
          hexToDecimal(r.gasUsed),
          Number(r.status),
          tx.input!.slice(0, 10),
          tx.input,
        ],
      );
      for (const l of r.logs) {
        await runner.query(
          `INSERT INTO explorer_logs (network, block_number, log_index, transaction_hash, address, topics, data)
           VALUES ('mainnet', $1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
          [n, hexToNumber(l.logIndex), tx.hash, l.address.toLowerCase(), l.topics, l.data],
        );
      }
    }
    await runner.query(
      `INSERT INTO explorer_index_state (network, first_block, last_block, last_hash) VALUES ('mainnet', 0, $1, $2)
       ON CONFLICT (network) DO UPDATE SET last_block = EXCLUDED.last_block, last_hash = EXCLUDED.last_hash`,
      [n, block.hash],
    );
    await runner.commitTransaction();
  }
}

async function freshDatabase(): Promise<{ url: string; ds: DataSource; drop(): Promise<void> }> {
  const db = await createTestDatabase();
  const ds = createDataSource(db.url);
  await ds.initialize();
  await runMigrations(ds);
  return {
    url: db.url,
    ds,
    async drop() {
      await ds.destroy();
      await db.drop();
    },
  };
}

async function timeRequests(url: string, n: number, warmup = 3): Promise<{ p50: number; p99: number; mean: number }> {
  for (let i = 0; i < warmup; i++) await fetch(url).then((r) => r.arrayBuffer());
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const res = await fetch(url);
    const body = (await res.json()) as { activity?: unknown[]; error?: unknown };
    if (res.status !== 200) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return {
    p50: round(percentile(times, 50), 2),
    p99: round(percentile(times, 99), 2),
    mean: round(times.reduce((a, b) => a + b, 0) / times.length, 2),
  };
}

async function main(): Promise<void> {
  log(`machine: ${os.cpus().length} cpus (${os.cpus()[0]?.model}), ${round(os.totalmem() / 2 ** 30)} GiB`);
  const mainnet = await startLocalNode({ chainId: 1991, blockTime: 86_400, logger });
  const testnet = await startLocalNode({ chainId: 17991, blockTime: 86_400, logger });
  const results: Record<string, unknown> = { blocks: BLOCKS };
  try {
    let started = Date.now();
    await generateChain(mainnet.url, BLOCKS, (done) => done % 5000 === 0 && log(`generated ${done} blocks`));
    const head = Number(BigInt((await rpc(mainnet.url, 'eth_blockNumber')) as string));
    const txCount = (await rpc(mainnet.url, 'eth_getBlockByNumber', [hex(head), false])) as { transactions: string[] };
    log(
      `chain: ${head + 1} blocks, ~${txCount.transactions.length} tx per block, in ${(Date.now() - started) / 1000} s`,
    );
    results.head = head;

    const chains = await ChainRegistry.connect({ mainnet: mainnet.url, testnet: testnet.url }, logger);

    // Baseline: the naive indexer on the first blocks.
    const baseDb = await freshDatabase();
    const runner = baseDb.ds.createQueryRunner();
    await runner.connect();
    started = performance.now();
    await naiveIndex(chains, runner, 0, BASELINE_BLOCKS - 1);
    const naiveRate = BASELINE_BLOCKS / ((performance.now() - started) / 1000);
    await runner.release();
    await baseDb.drop();
    log(`naive indexer: ${round(naiveRate)} blocks/s over ${BASELINE_BLOCKS} blocks`);

    // Upper bound from the node: fetching only, as the indexer does (pipelined batches).
    const reader = new ChainReader(chains);
    started = performance.now();
    const FETCH_SAMPLE = Math.min(5_000, head);
    const pending: Array<Promise<unknown>> = [];
    for (let from = 0; from < FETCH_SAMPLE; from += 100) {
      pending.push(reader.fullBlocks('mainnet', from, Math.min(FETCH_SAMPLE - 1, from + 99)));
      if (pending.length >= 3) await pending.shift();
    }
    await Promise.all(pending);
    const fetchRate = FETCH_SAMPLE / ((performance.now() - started) / 1000);
    log(`fetch only (blocks + receipts): ${round(fetchRate)} blocks/s over ${FETCH_SAMPLE} blocks`);

    // The explorer's indexer on the whole chain.
    const db = await freshDatabase();
    const index = new BlockIndex(db.ds);
    const watcher = new ChainWatcher('mainnet', reader, () => undefined, logger);
    const indexer = new ExplorerIndexer({
      network: 'mainnet',
      ds: db.ds,
      index,
      reader,
      watcher,
      logger,
      startBlock: 0,
    });
    started = performance.now();
    indexer.start();
    for (;;) {
      const state = await index.state('mainnet');
      if (state && state.lastBlock >= head) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    await indexer.stop();
    const counts = (
      await db.ds.query(
        `SELECT (SELECT count(*) FROM explorer_blocks)::int AS blocks, (SELECT count(*) FROM explorer_transactions)::int AS txs,
                (SELECT count(*) FROM explorer_logs)::int AS logs`,
      )
    )[0];
    const rate = (head + 1) / seconds;
    log(
      `explorer indexer: ${head + 1} blocks in ${round(seconds, 2)} s = ${round(rate)} blocks/s (${round(counts.txs / seconds)} tx/s)`,
    );
    results.indexer = {
      seconds: round(seconds, 2),
      blocksPerSecond: round(rate),
      txPerSecond: round(counts.txs / seconds),
      rows: counts,
      naiveBlocksPerSecond: round(naiveRate),
      fetchOnlyBlocksPerSecond: round(fetchRate),
      speedupOverNaive: round(rate / naiveRate, 1),
    };

    const hotCount = (
      await db.ds.query(
        `SELECT count(*)::int AS n FROM explorer_transactions WHERE network = 'mainnet' AND from_address = $1`,
        [HOT.toLowerCase()],
      )
    )[0].n;
    await db.ds.query('ANALYZE');
    const plan = (
      await db.ds.query(`EXPLAIN (ANALYZE, BUFFERS) ${BlockIndex.ACTIVITY_SQL}`, ['mainnet', HOT.toLowerCase(), 25])
    )
      .map((r: Record<string, string>) => r['QUERY PLAN'])
      .join('\n');
    log(`activity plan for the hot address (${hotCount} transactions):\n${plan}`);
    results.explain = { hotTransactions: hotCount, usesIndexes: !/Seq Scan/.test(plan), plan };

    // Address latency through the service (its own process), index versus RPC scan.
    const service = await spawnService(
      serviceEnv({ databaseUrl: db.url, testnetUrl: testnet.url, mainnetUrl: mainnet.url }, { LOG_LEVEL: 'warn' }),
    );
    try {
      const base = `${service.url}/api/explorer/address`;
      const address: Record<string, unknown> = {
        hotIndexed: await timeRequests(`${base}/${HOT}?network=mainnet`, 300),
        hotScan500: await timeRequests(`${base}/${HOT}?network=mainnet&scan=500`, 50),
        hotScan5000: await timeRequests(`${base}/${HOT}?network=mainnet&scan=5000`, 50),
        quietIndexed: await timeRequests(`${base}/${QUIET}?network=mainnet`, 300),
        quietScan500: await timeRequests(`${base}/${QUIET}?network=mainnet&scan=500`, 20),
        quietScan5000: await timeRequests(`${base}/${QUIET}?network=mainnet&scan=5000`, 10, 1),
      };
      const hot = address.hotIndexed as { p50: number; p99: number };
      const quiet = address.quietIndexed as { p50: number; p99: number };
      const ratio = (x: unknown, y: { p50: number; p99: number }) => {
        const v = x as { p50: number; p99: number };
        return { p50: round(v.p50 / y.p50, 1), p99: round(v.p99 / y.p99, 1) };
      };
      address.ratios = {
        hotScan500OverIndex: ratio(address.hotScan500, hot),
        hotScan5000OverIndex: ratio(address.hotScan5000, hot),
        quietScan500OverIndex: ratio(address.quietScan500, quiet),
        quietScan5000OverIndex: ratio(address.quietScan5000, quiet),
      };
      results.address = address;
      log('address latency (ms):', JSON.stringify(address, null, 2));
    } finally {
      await service.stop();
    }
    chains.destroy();
    await db.drop();
  } finally {
    await mainnet.stop();
    await testnet.stop();
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
