// Chain-scale explorer benchmark (docs/api.md, "Many instances, many cores": an index of 1,000,000
// blocks and 10,000,000 transactions, explorer reads at p99 ≤ 50 ms).
//
// Fills a fresh database with a generated chain through COPY into the index's own tables (blocks,
// transactions, logs, token transfers, balances, tokens), with realistic shapes: many addresses
// (each with a few transactions), a few hot accounts and contracts (hundreds of thousands each),
// ERC-20 and ERC-721 transfers with their holders. Then it measures, through the real service over
// HTTP (its explorer indexer off, so nothing moves under the measurement), the explorer's pages one
// request at a time: p50/p99 per page. Then the size of each table (pg_total_relation_size), and
// the catch-up write rate: the indexer's own write path (BlockIndex.writeBatch, batches of 100
// blocks) appending blocks onto the full index.
//
//   npm run bench:chain-scale                 SCALE=0.1 (default): 100,000 blocks, ~1,000,000 transactions
//   SCALE=1 npm run bench:chain-scale         1,000,000 blocks, ~10,000,000 transactions
//   BENCH_KEEP=1                              keep the database (its URL is printed)
//   BENCH_DATABASE_URL=postgres://…           measure a kept database again (no generation), e.g.
//                                             after a migration; BENCH_MIGRATE=1 runs pending migrations first
//   BENCH_PAGES=regex                         measure only the pages whose names match (case-insensitive)
//   BENCH_CATCHUP_BLOCKS (default 2,000)      blocks of the catch-up write rate; 0 skips it
//   BENCH_CPU_PROF=dir                        the service runs with node --cpu-prof, its profile written there
//   BENCH_SAMPLES (default 300)               requests per page, within BENCH_PAGE_SECONDS (default 60) of them
//
// COPY goes through `psql` (PostgreSQL's client, beside the server on every machine that runs the
// tests): node-postgres has no COPY FROM STDIN of its own.
import 'reflect-metadata';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { startLocalNode } from '../src/chain/local-node';
import { createDataSource, runMigrations } from '../src/database/data-source';
import { createLogger } from '../src/kernel/logger';
import { BlockIndex } from '../src/modules/explorer';
import type { FullBlock } from '../src/modules/explorer/runtime/chain-reader';
import { serviceEnv, spawnService } from '../tests/kit/process';
import { createTestDatabase } from '../tests/kit/stack';
import { machine } from './kit';

const SCALE = Number(process.env.SCALE ?? 0.1);
const BLOCKS = Math.round(1_000_000 * SCALE);
const ACCOUNTS = Math.max(20_000, Math.round(2_000_000 * SCALE));
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const NETWORK = 'mainnet'; // the explorer's default network
const T0 = 1_700_000_000;
const ZERO = `0x${'0'.repeat(40)}`;
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const SWAP = '0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822';
const SYNC = '0x1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1';
const ERC20_TRANSFER_CALL = '0xa9059cbb';
const SWAP_CALL = '0x38ed1739';

const log = (...args: unknown[]) => console.log(new Date().toISOString().slice(11, 19), ...args);

/** mulberry32: a seeded generator, so that every run builds the same chain. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
// Seeded: every run builds the same chain (its cast, below, included); reseeded for the catch-up.
let random = prng(20261126);
const word = () =>
  Math.floor(random() * 4294967296)
    .toString(16)
    .padStart(8, '0');
const hex32 = () => `0x${word()}${word()}${word()}${word()}${word()}${word()}${word()}${word()}`;
const hex20 = () => `0x${word()}${word()}${word()}${word()}${word()}`;
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const pad32 = (address: string) => `0x${'0'.repeat(24)}${address.slice(2)}`;
const uint = (n: number) => n.toString(16).padStart(64, '0');

/** The chain's cast: accounts, hot accounts, tokens and other hot contracts. */
const accounts = Array.from({ length: ACCOUNTS }, hex20);
/** Exchanges and bots: 15% of all transactions come from these ten, a third of those from the first. */
const hotAccounts = Array.from({ length: 10 }, hex20);
const validators = Array.from({ length: 4 }, hex20);
const hotTokens = Array.from({ length: 5 }, hex20); // ERC-20, 35% of all transactions between them
const smallTokens = Array.from({ length: 200 }, hex20); // ERC-20, 2%
const collectible = hex20(); // ERC-721, 5%
const pools = Array.from({ length: 20 }, hex20); // swaps: 20%, two logs each
const account = () => (random() < 0.1 ? pick(hotAccounts) : accounts[Math.floor(random() * ACCOUNTS)]!);
const sender = () => {
  const r = random();
  if (r < 0.05) return hotAccounts[0]!;
  if (r < 0.15) return pick(hotAccounts);
  return accounts[Math.floor(random() * ACCOUNTS)]!;
};

/** COPY … FROM STDIN through psql, fed in chunks with backpressure. */
class CopyIn {
  private readonly proc: ChildProcessWithoutNullStreams;
  private buffer: string[] = [];
  private size = 0;
  private readonly done: Promise<void>;
  rows = 0;

  constructor(databaseUrl: string, table: string, columns: string[]) {
    this.proc = spawn('psql', [
      databaseUrl,
      '-v',
      'ON_ERROR_STOP=1',
      '-qc',
      `COPY ${table} (${columns.join(', ')}) FROM STDIN`,
    ]);
    let err = '';
    this.proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    this.done = new Promise((resolve, reject) =>
      this.proc.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`COPY ${table}: ${err}`)))),
    );
    this.done.catch(() => undefined);
  }

  async row(fields: Array<string | number | null>): Promise<void> {
    const line = `${fields.map((f) => (f === null ? '\\N' : String(f))).join('\t')}\n`;
    this.buffer.push(line);
    this.size += line.length;
    this.rows++;
    if (this.size > 1 << 20) await this.flush();
  }

  private async flush(): Promise<void> {
    const chunk = this.buffer.join('');
    this.buffer = [];
    this.size = 0;
    if (!this.proc.stdin.write(chunk)) await once(this.proc.stdin, 'drain');
  }

  async end(): Promise<void> {
    await this.flush();
    this.proc.stdin.end();
    await this.done;
  }
}

const TABLES = [
  'explorer_blocks',
  'explorer_transactions',
  'explorer_logs',
  'token_transfers',
  'token_balances',
  'tokens',
];

interface Samples {
  txs: string[];
  hotAccount: string;
  coldAccounts: string[];
  hotToken: string;
  smallTokens: string[];
  collectible: string;
  pool: string;
  lastBlock: number;
}

/** Generates the chain into the (migrated, empty) database: secondary indexes are built after the load. */
async function generate(databaseUrl: string): Promise<Samples> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const indexes: Array<{ name: string; def: string }> = (
    await db.query(
      `SELECT i.indexname AS name, i.indexdef AS def FROM pg_indexes i
        WHERE i.schemaname = 'public' AND i.tablename = ANY($1)
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
      [TABLES],
    )
  ).rows;
  for (const i of indexes) await db.query(`DROP INDEX ${i.name}`);

  const started = Date.now();
  const blocks = new CopyIn(databaseUrl, 'explorer_blocks', [
    'network',
    'number',
    'hash',
    'parent_hash',
    'timestamp',
    'miner',
    'transaction_count',
    'gas_used',
    'gas_limit',
    'extra_data',
  ]);
  const txs = new CopyIn(databaseUrl, 'explorer_transactions', [
    'network',
    'hash',
    'block_number',
    'transaction_index',
    'timestamp',
    'from_address',
    'to_address',
    'contract_address',
    'value',
    'nonce',
    'gas_limit',
    'gas_price',
    'gas_used',
    'status',
    'method_id',
    'input',
  ]);
  const logs = new CopyIn(databaseUrl, 'explorer_logs', [
    'network',
    'block_number',
    'log_index',
    'transaction_hash',
    'address',
    'topics',
    'data',
  ]);
  const transfers = new CopyIn(databaseUrl, 'token_transfers', [
    'network',
    'block_number',
    'log_index',
    'batch_index',
    'tx_hash',
    'token',
    'type',
    'from_address',
    'to_address',
    'value',
    'token_id',
    'timestamp',
  ]);
  const nonces = new Map<string, number>();
  const sampled: string[] = [];
  let parent = hex32();
  let nftId = 0;
  const sampleEvery = Math.max(1, Math.floor((BLOCKS * 10) / 2_000));
  for (let n = 0; n < BLOCKS; n++) {
    const timestamp = T0 + n * 2;
    const hash = hex32();
    const count = Math.floor(random() * 21); // 0..20, 10 on average
    let gasUsed = 0;
    let logIndex = 0;
    for (let i = 0; i < count; i++) {
      const txHash = hex32();
      if (txs.rows % sampleEvery === 0) sampled.push(txHash);
      const from = sender();
      const nonce = nonces.get(from) ?? 0;
      nonces.set(from, nonce + 1);
      const failed = random() < 0.01;
      const r = random();
      let to: string | null;
      let created: string | null = null;
      let input = '0x';
      let value = '0';
      let gas = 21_000;
      const emitted: Array<{ address: string; topics: string[]; data: string }> = [];
      if (r < 0.37) {
        // ERC-20 transfer: a hot token, now and then a small one.
        to = r < 0.35 ? (random() < 0.5 ? hotTokens[0]! : pick(hotTokens)) : pick(smallTokens);
        const recipient = account();
        const amount = 1 + Math.floor(random() * 1e9);
        input = `${ERC20_TRANSFER_CALL}${uint(0).slice(24)}${recipient.slice(2)}${uint(amount)}`;
        gas = 52_000;
        emitted.push({ address: to, topics: [TRANSFER, pad32(from), pad32(recipient)], data: `0x${uint(amount)}` });
      } else if (r < 0.42) {
        // ERC-721: a mint (from the zero address) or a transfer of an id held by someone.
        to = collectible;
        const id = nftId === 0 || random() < 0.3 ? ++nftId : 1 + Math.floor(random() * nftId);
        const owner = id === nftId ? ZERO : from;
        gas = 80_000;
        input = `0x42842e0e${uint(0)}`;
        emitted.push({ address: to, topics: [TRANSFER, pad32(owner), pad32(account()), `0x${uint(id)}`], data: '0x' });
      } else if (r < 0.62) {
        to = pick(pools);
        input = `${SWAP_CALL}${uint(Math.floor(random() * 1e12))}`;
        gas = 120_000;
        emitted.push({ address: to, topics: [SYNC], data: `0x${uint(Math.floor(random() * 1e15))}${uint(7)}` });
        emitted.push({ address: to, topics: [SWAP, pad32(from), pad32(from)], data: `0x${uint(1)}${uint(2)}` });
      } else if (r < 0.621) {
        to = null;
        created = hex20();
        input = `0x6080604052${'00'.repeat(400)}`;
        gas = 900_000;
      } else {
        to = account();
        value = String(1 + Math.floor(random() * 1e15));
      }
      gasUsed += gas;
      await txs.row([
        NETWORK,
        txHash,
        n,
        i,
        timestamp,
        from,
        to,
        created,
        value,
        nonce,
        gas + 10_000,
        1_000_000_000,
        gas,
        failed ? 0 : 1,
        input.length >= 10 ? input.slice(0, 10) : null,
        input,
      ]);
      if (failed) continue;
      for (const e of emitted) {
        await logs.row([NETWORK, n, logIndex, txHash, e.address, `{${e.topics.join(',')}}`, e.data]);
        if (e.topics[0] === TRANSFER) {
          const nft = e.topics.length === 4;
          await transfers.row([
            NETWORK,
            n,
            logIndex,
            -1,
            txHash,
            e.address,
            nft ? 'ERC-721' : 'ERC-20',
            `0x${e.topics[1]!.slice(26)}`,
            `0x${e.topics[2]!.slice(26)}`,
            nft ? null : BigInt(e.data).toString(),
            nft ? BigInt(e.topics[3]!).toString() : null,
            timestamp,
          ]);
        }
        logIndex++;
      }
    }
    await blocks.row([
      NETWORK,
      n,
      hash,
      parent,
      timestamp,
      pick(validators),
      count,
      gasUsed,
      30_000_000,
      `0x${word()}${'00'.repeat(60)}`,
    ]);
    parent = hash;
    if (n > 0 && n % Math.max(1, Math.floor(BLOCKS / 10)) === 0) {
      const s = (Date.now() - started) / 1000;
      log(
        `  block ${n.toLocaleString('en-US')}: ${txs.rows.toLocaleString('en-US')} txs, ${Math.round(txs.rows / s).toLocaleString('en-US')} txs/s`,
      );
    }
  }
  await Promise.all([blocks.end(), txs.end(), logs.end(), transfers.end()]);
  const copied = (Date.now() - started) / 1000;
  log(
    `COPY done in ${copied.toFixed(0)} s: ${blocks.rows.toLocaleString('en-US')} blocks, ${txs.rows.toLocaleString('en-US')} transactions, ` +
      `${logs.rows.toLocaleString('en-US')} logs, ${transfers.rows.toLocaleString('en-US')} token transfers`,
  );

  // Balances, tokens and the index's progress row, from what was loaded (token-store.ts's own rules).
  let t = Date.now();
  await db.query(
    `INSERT INTO token_balances (network, token, holder, token_id, value)
     SELECT $1, token, holder, -1, sum(amount) FROM (
       SELECT token, to_address AS holder, CASE WHEN type = 'ERC-721' THEN 1 ELSE value END AS amount FROM token_transfers
       UNION ALL
       SELECT token, from_address, -(CASE WHEN type = 'ERC-721' THEN 1 ELSE value END) FROM token_transfers
     ) moves WHERE holder <> $2 GROUP BY token, holder HAVING sum(amount) > 0`,
    [NETWORK, ZERO],
  );
  const names = [
    ...hotTokens.map((a, i) => [a, 'ERC-20', `Hot Token ${i}`, `HOT${i}`, 18]),
    ...smallTokens.map((a, i) => [a, 'ERC-20', `Small Token ${i}`, `SML${i}`, 6]),
    [collectible, 'ERC-721', 'Bench Collectible', 'BNFT', null],
  ] as const;
  await db.query(
    `INSERT INTO tokens (network, address, type, first_block, name, symbol, decimals, total_supply, metadata_read_at,
                         holder_count, transfer_count)
     SELECT $1, u.address, u.type, s.first_block, u.name, u.symbol, u.decimals, s.supply, now(),
            (SELECT count(*) FROM token_balances b WHERE b.network = $1 AND b.token = u.address), s.transfers
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[]) AS u(address, type, name, symbol, decimals)
       JOIN (SELECT token, min(block_number) AS first_block, count(*) AS transfers, sum(value) AS supply
               FROM token_transfers GROUP BY token) s ON s.token = u.address`,
    [
      NETWORK,
      names.map((x) => x[0]),
      names.map((x) => x[1]),
      names.map((x) => x[2]),
      names.map((x) => x[3]),
      names.map((x) => x[4]),
    ],
  );
  await db.query(
    `INSERT INTO explorer_index_state (network, first_block, last_block, last_hash) VALUES ($1, 0, $2, $3)`,
    [NETWORK, BLOCKS - 1, parent],
  );
  log(`balances and tokens in ${((Date.now() - t) / 1000).toFixed(0)} s`);

  t = Date.now();
  for (const i of indexes) await db.query(i.def);
  log(`${indexes.length} secondary indexes built in ${((Date.now() - t) / 1000).toFixed(0)} s`);
  t = Date.now();
  await db.query('VACUUM ANALYZE');
  log(
    `VACUUM ANALYZE in ${((Date.now() - t) / 1000).toFixed(0)} s; generation took ${((Date.now() - started) / 60_000).toFixed(1)} min`,
  );
  await db.end();
  return samplesFrom(sampled);
}

function samplesFrom(txs: string[]): Samples {
  return {
    txs,
    hotAccount: hotAccounts[0]!,
    coldAccounts: accounts.slice(0, 500),
    hotToken: hotTokens[0]!,
    smallTokens,
    collectible,
    pool: pools[0]!,
    lastBlock: BLOCKS - 1,
  };
}

/** Samples of a kept database: read back from it. */
async function samplesOf(databaseUrl: string): Promise<Samples> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const q = async (sql: string, params: unknown[] = []) =>
    (await db.query(sql, params)).rows as Array<Record<string, string>>;
  const last = Number(
    (await q(`SELECT last_block FROM explorer_index_state WHERE network = $1`, [NETWORK]))[0]!.last_block,
  );
  const txs = (await q(`SELECT hash FROM explorer_transactions TABLESAMPLE SYSTEM (0.1) LIMIT 2000`)).map(
    (r) => r.hash!,
  );
  const hotAccount = (
    await q(
      `SELECT from_address FROM explorer_transactions TABLESAMPLE SYSTEM (1) GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
    )
  )[0]!.from_address!;
  const coldAccounts = (
    await q(
      `SELECT to_address FROM explorer_transactions TABLESAMPLE SYSTEM (0.1) WHERE method_id IS NULL AND to_address IS NOT NULL LIMIT 500`,
    )
  ).map((r) => r.to_address!);
  const tokens = await q(`SELECT address, type FROM tokens WHERE network = $1 ORDER BY transfer_count DESC`, [NETWORK]);
  const erc20 = tokens.filter((t) => t.type === 'ERC-20').map((t) => t.address!);
  const pool = (
    await q(`SELECT address FROM explorer_logs TABLESAMPLE SYSTEM (0.1) WHERE topics[1] = $1 LIMIT 1`, [SWAP])
  )[0]!.address!;
  await db.end();
  return {
    txs,
    hotAccount,
    coldAccounts,
    hotToken: erc20[0]!,
    smallTokens: erc20.slice(-100),
    collectible: tokens.find((t) => t.type === 'ERC-721')!.address!,
    pool,
    lastBlock: last,
  };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

interface PageResult {
  name: string;
  n: number;
  p50: number;
  p99: number;
  max: number;
}

/** BENCH_PAGES: a regular expression; only the pages whose names match it are measured. */
const ONLY = process.env.BENCH_PAGES ? new RegExp(process.env.BENCH_PAGES, 'i') : null;

/** Measured seconds per page at most: a page that takes seconds is sampled fewer times. */
const PAGE_SECONDS = Number(process.env.BENCH_PAGE_SECONDS ?? 60);

/** One request at a time (keep-alive), SAMPLES times (or PAGE_SECONDS), after a tenth as many unmeasured. */
async function measure(name: string, next: (i: number) => Promise<unknown>): Promise<PageResult> {
  const warm = Math.ceil(SAMPLES / 10);
  const times: number[] = [];
  let spent = 0;
  for (let i = 0; i < SAMPLES + warm && spent < PAGE_SECONDS * 1000; i++) {
    const t = process.hrtime.bigint();
    await next(i);
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (i >= warm) {
      times.push(ms);
      spent += ms;
    }
  }
  times.sort((a, b) => a - b);
  const r = {
    name,
    n: times.length,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    max: times[times.length - 1]!,
  };
  log(`  ${name}: p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms (${r.n} requests)`);
  return r;
}

async function pages(url: string, s: Samples, ds: DataSource): Promise<PageResult[]> {
  const get = async (path: string, check?: (body: Record<string, unknown>) => boolean) => {
    const res = await fetch(`${url}${path}`);
    const body = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200 || (check && !check(body))) {
      throw new Error(`${path}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    }
    return body;
  };
  const e = '/api/explorer';
  const found = (b: Record<string, unknown>) => b.found === true;
  const full = (b: Record<string, unknown>) => Array.isArray(b.result) && b.result.length === 100;
  const items = (b: Record<string, unknown>) => Array.isArray(b.items) && b.items.length > 0;
  const block = () => Math.floor(random() * (s.lastBlock + 1));
  /** `pages` pages of a cursor-paginated list, the last one measured: a deep page. */
  const deep = async (path: string, depth: number) => {
    let cursor: string | null = null;
    for (let p = 0; p < depth; p++) {
      const sep = path.includes('?') ? '&' : '?';
      const b = await get(`${path}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`, items);
      cursor = (b.nextCursor as string | null) ?? null;
      if (!cursor) break;
    }
    return cursor;
  };
  const results: PageResult[] = [];
  const run = async (name: string, next: (i: number) => Promise<unknown>) => {
    if (ONLY && !ONLY.test(name)) return;
    try {
      results.push(await measure(name, next));
    } catch (err) {
      log(`  ${name}: failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  // The floor: what any answer costs on this machine now (the service's event loop, HTTP, the client).
  await run('floor: GET /healthz', () => get('/healthz'));
  await run('live blocks (10)', () => get(`${e}/live-blocks?limit=10`));
  await run('block by number', () => get(`${e}/block/${block()}`, found));
  await run('block: latest', () => get(`${e}/block/latest`, found));
  await run('tx by hash', (i) => get(`${e}/tx/${s.txs[i % s.txs.length]}`, found));
  await run('address, hot account (25)', () => get(`${e}/address/${s.hotAccount}`, found));
  await run('address, hot account (100)', () => get(`${e}/address/${s.hotAccount}?limit=100`, found));
  await run('address, hot token contract (25)', () => get(`${e}/address/${s.hotToken}`, found));
  await run('address, cold account (25)', (i) => get(`${e}/address/${s.coldAccounts[i % s.coldAccounts.length]}`));
  const ethscan = `${e}/etherscan/mainnet/api?module=account&action=txlist`;
  await run('etherscan txlist, hot account, page 1 of 100', () =>
    get(`${ethscan}&address=${s.hotAccount}&page=1&offset=100&sort=desc`, full),
  );
  await run('etherscan txlist, hot account, page 100 of 100', () =>
    get(`${ethscan}&address=${s.hotAccount}&page=100&offset=100&sort=desc`, full),
  );
  await run('etherscan txlist, cold account', (i) =>
    get(`${ethscan}&address=${s.coldAccounts[i % s.coldAccounts.length]}&page=1&offset=100&sort=desc`),
  );
  await run('etherscan txlist, hot token contract, page 100 of 100', () =>
    get(`${ethscan}&address=${s.hotToken}&page=100&offset=100&sort=desc`, full),
  );
  const tokentx = `${e}/etherscan/mainnet/api?module=account&action=tokentx&address=${s.hotAccount}&offset=100&sort=desc`;
  await run('etherscan tokentx, hot account, page 1 of 100', () => get(`${tokentx}&page=1`, full));
  await run('etherscan tokentx, hot account, page 100 of 100', () => get(`${tokentx}&page=100`, full));
  const index = new BlockIndex(ds);
  await run('logs by address and topic, hot pool (index, 100)', () =>
    index.contractLogs(NETWORK, s.pool, [SWAP], null, null, 100),
  );
  await run('logs by address and topic, hot pool, deep (index, 100)', () =>
    index.contractLogs(NETWORK, s.pool, [SWAP], { blockNumber: block(), logIndex: 0 }, null, 100),
  );
  await run('logs by address and topic, hot token, Transfer (index, 100)', () =>
    index.contractLogs(NETWORK, s.hotToken, [TRANSFER], null, null, 100),
  );
  await run('logs by address and topic, hot token, an event it never emitted (index)', () =>
    index.contractLogs(NETWORK, s.hotToken, [SWAP], null, null, 100),
  );
  // The index's share of the address page: its activity query alone, in this process.
  await run('address activity query alone, hot account (index, 100)', () => index.activity(NETWORK, s.hotAccount, 100));
  await run('block query alone (index)', () => index.blockByNumber(NETWORK, block()));
  await run('token transfers of a hot account (25)', () => get(`${e}/address/${s.hotAccount}/token-transfers`, items));
  await run('token transfers of a cold account (25)', (i) =>
    get(`${e}/address/${s.coldAccounts[i % s.coldAccounts.length]}/token-transfers`),
  );
  await run('token transfers of a hot token (25)', () => get(`${e}/token/${s.hotToken}/transfers`, items));
  const wanted = (name: string) => !ONLY || ONLY.test(name);
  // The deep pages' cursors (and the largest holder) are read only when their page is measured.
  const deepCursor = wanted('token transfers of a hot token, page 51 of 100')
    ? await deep(`${e}/token/${s.hotToken}/transfers?limit=100`, 50)
    : null;
  await run('token transfers of a hot token, page 51 of 100', () =>
    get(`${e}/token/${s.hotToken}/transfers?limit=100&cursor=${encodeURIComponent(deepCursor ?? '')}`, items),
  );
  await run('token transfers of a small token (25)', (i) =>
    get(`${e}/token/${s.smallTokens[i % s.smallTokens.length]}/transfers`),
  );
  await run('token: hot token', () => get(`${e}/token/${s.hotToken}`, found));
  await run('holders of a hot token (25)', () => get(`${e}/token/${s.hotToken}/holders`, items));
  const holderCursor = wanted('holders of a hot token, page 51 of 100')
    ? await deep(`${e}/token/${s.hotToken}/holders?limit=100`, 50)
    : null;
  await run('holders of a hot token, page 51 of 100', () =>
    get(`${e}/token/${s.hotToken}/holders?limit=100&cursor=${encodeURIComponent(holderCursor ?? '')}`, items),
  );
  await run('holders of the ERC-721 (25)', () => get(`${e}/token/${s.collectible}/holders`, items));
  // The hot token's largest holder: hot accounts send more than they receive, and may hold nothing.
  const holders = wanted("token balances of the hot token's largest holder")
    ? ((await get(`${e}/token/${s.hotToken}/holders?limit=1`, items)).items as Array<{ address: string }>)
    : [];
  await run("token balances of the hot token's largest holder", () =>
    get(`${e}/address/${holders[0]!.address}/token-balances`, items),
  );
  await run('search: block number', () => get(`${e}/search?q=${block()}`));
  await run('search: tx hash', (i) => get(`${e}/search?q=${s.txs[(i * 7) % s.txs.length]}`));
  await run('search: address', (i) => get(`${e}/search?q=${s.coldAccounts[i % s.coldAccounts.length]}`));
  await run('search: token name prefix', (i) => get(`${e}/search?q=${encodeURIComponent(`Small Token ${i % 150}`)}`));
  return results;
}

/** Sizes of the index's tables, their indexes included. */
async function sizes(
  databaseUrl: string,
): Promise<Array<{ table: string; rows: number; bytes: number; indexBytes: number }>> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const out = [];
  for (const table of TABLES) {
    const r = (
      await db.query(
        `SELECT (SELECT count(*) FROM ${table}) AS rows, pg_total_relation_size($1) AS bytes, pg_indexes_size($1) AS index_bytes`,
        [table],
      )
    ).rows[0] as { rows: string; bytes: string; index_bytes: string };
    out.push({ table, rows: Number(r.rows), bytes: Number(r.bytes), indexBytes: Number(r.index_bytes) });
  }
  await db.end();
  return out;
}

/** The indexer's write path on top of the full index: `count` blocks in batches of 100, like the chain's. */
async function catchUp(ds: DataSource, from: number, count: number): Promise<string> {
  const index = new BlockIndex(ds);
  // New hashes: on a kept database the seeded sequence would repeat the generated chain's, and the
  // writes would skip them as already there.
  random = prng(Date.now() >>> 0);
  const runner = ds.createQueryRunner();
  const hexN = (n: number) => `0x${n.toString(16)}`;
  let previous = from - 1;
  let parent = (await index.state(NETWORK))!.lastHash;
  let txCount = 0;
  let logCount = 0;
  let writeMs = 0;
  try {
    for (let start = from; start < from + count; start += 100) {
      const batch: FullBlock[] = [];
      for (let n = start; n < Math.min(from + count, start + 100); n++) {
        const hash = hex32();
        const transactions = Array.from({ length: 10 }, (_, i) => {
          const token = random() < 0.5;
          const to = token ? pick(hotTokens) : account();
          return {
            hash: hex32(),
            blockNumber: hexN(n),
            blockHash: hash,
            transactionIndex: hexN(i),
            from: sender(),
            to,
            value: '0x1',
            nonce: '0x0',
            gas: '0x5208',
            input: token ? `${ERC20_TRANSFER_CALL}${uint(1)}` : '0x',
          };
        });
        const receipts = transactions.map((tx, i) => ({
          transactionHash: tx.hash,
          blockHash: hash,
          status: '0x1',
          gasUsed: '0x5208',
          effectiveGasPrice: '0x3b9aca00',
          contractAddress: null,
          logs:
            tx.input === '0x'
              ? []
              : [
                  {
                    address: tx.to,
                    topics: [TRANSFER, pad32(tx.from), pad32(account())],
                    data: `0x${uint(5)}`,
                    logIndex: hexN(i),
                    transactionHash: tx.hash,
                  },
                ],
        }));
        txCount += transactions.length;
        logCount += receipts.reduce((a, r) => a + r.logs.length, 0);
        batch.push({
          block: {
            number: hexN(n),
            hash,
            parentHash: parent,
            timestamp: hexN(T0 + n * 2),
            miner: pick(validators),
            gasUsed: '0x0',
            gasLimit: '0x1c9c380',
            extraData: '0x',
            transactions,
          },
          receipts,
        });
        parent = hash;
      }
      const t = process.hrtime.bigint();
      if (!(await index.writeBatch(runner, NETWORK, batch, previous, 0))) throw new Error('the progress row moved');
      writeMs += Number(process.hrtime.bigint() - t) / 1e6;
      previous += batch.length;
    }
  } finally {
    await runner.release();
  }
  const s = writeMs / 1000;
  return `${count.toLocaleString('en-US')} blocks (${txCount.toLocaleString('en-US')} transactions, ${logCount.toLocaleString('en-US')} logs and token transfers) written in ${s.toFixed(1)} s: **${Math.round(count / s).toLocaleString('en-US')} blocks/s, ${Math.round(txCount / s).toLocaleString('en-US')} transactions/s**`;
}

const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;

async function main(): Promise<void> {
  console.log(
    `\nMachine: ${machine()}; load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  let databaseUrl = process.env.BENCH_DATABASE_URL;
  let drop: (() => Promise<void>) | undefined;
  let samples: Samples;
  if (databaseUrl) {
    if (process.env.BENCH_MIGRATE === '1') {
      const ds = createDataSource(databaseUrl);
      await ds.initialize();
      const t = Date.now();
      await runMigrations(ds);
      log(`migrations run in ${((Date.now() - t) / 1000).toFixed(0)} s`);
      await ds.destroy();
    }
    samples = await samplesOf(databaseUrl);
    log(`measuring the kept database ${databaseUrl}`);
  } else {
    const db = await createTestDatabase();
    databaseUrl = db.url;
    drop = db.drop;
    const ds = createDataSource(databaseUrl);
    await ds.initialize();
    await runMigrations(ds);
    await ds.destroy();
    log(
      `SCALE=${SCALE}: generating ${BLOCKS.toLocaleString('en-US')} blocks, ${ACCOUNTS.toLocaleString('en-US')} accounts into ${databaseUrl}`,
    );
    samples = await generate(databaseUrl);
  }
  const testnet = await startLocalNode({ chainId: 17991, blockTime: 86_400, logger: createLogger('silent') });
  const mainnet = await startLocalNode({ chainId: 1991, blockTime: 86_400, logger: createLogger('silent') });
  const service = await spawnService(
    serviceEnv(
      { databaseUrl, testnetUrl: testnet.url, mainnetUrl: mainnet.url },
      {
        LOG_LEVEL: 'warn',
        INDEXER_ENABLED: 'false',
        // A CPU profile of the service under the measured pages, written when it stops.
        ...(process.env.BENCH_CPU_PROF
          ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` }
          : {}),
      },
    ),
    120_000,
  );
  const ds = createDataSource(databaseUrl);
  await ds.initialize();
  try {
    log(`pages, ${SAMPLES} requests each, one at a time, through ${service.url}:`);
    const results = await pages(service.url, samples, ds);
    const tables = await sizes(databaseUrl);
    const rowsOf = (t: string) => tables.find((x) => x.table === t)!.rows;
    const blocks = rowsOf('explorer_blocks');
    const txs = rowsOf('explorer_transactions');
    const total = tables.reduce((a, t) => a + t.bytes, 0);
    const catchUpBlocks = Number(process.env.BENCH_CATCHUP_BLOCKS ?? 2_000);
    // BENCH_CATCHUP_BLOCKS=0 leaves a kept database as generated (the catch-up appends blocks to it).
    const catchUpLine = catchUpBlocks > 0 ? await catchUp(ds, samples.lastBlock + 1, catchUpBlocks) : 'not run';

    console.log(`\n## Chain-scale index (SCALE=${SCALE})\n`);
    console.log('| page | requests | p50 ms | p99 ms | max ms |');
    console.log('| --- | --- | --- | --- | --- |');
    for (const r of results)
      console.log(`| ${r.name} | ${r.n} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(1)} |`);
    console.log('\n| table | rows | size (with indexes) | of which indexes |');
    console.log('| --- | --- | --- | --- |');
    for (const t of tables)
      console.log(`| ${t.table} | ${t.rows.toLocaleString('en-US')} | ${mb(t.bytes)} | ${mb(t.indexBytes)} |`);
    console.log(`| total | | ${mb(total)} | ${mb(tables.reduce((a, t) => a + t.indexBytes, 0))} |`);
    console.log(
      `\nPer block: ${(total / blocks / 1024).toFixed(1)} KiB; per transaction (everything): ${(total / txs).toFixed(0)} bytes.`,
    );
    console.log(`Catch-up on top of the full index: ${catchUpLine}.`);
    console.log(
      `Load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await ds.destroy();
    await service.stop();
    await testnet.stop();
    await mainnet.stop();
    if (drop && process.env.BENCH_KEEP !== '1') await drop();
    else log(`database kept: BENCH_DATABASE_URL=${databaseUrl}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
