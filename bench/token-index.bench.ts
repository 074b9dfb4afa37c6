// Tokens benchmark: the explorer index's batch write (BlockIndex.writeBatch, batches of 100 blocks)
// on token-heavy blocks (every transaction an ERC-20 Transfer or an ERC-1155 TransferBatch) beside
// plain blocks (the same shape, a non-token log), in the same run; then the address token-transfer
// page and the token holders page with 1,000,000 transfers indexed (docs/api.md, "Tokens").
//
//   npm run build && node dist/bench/token-index.bench.js      (BENCH_BLOCKS=20000 by default)
import 'reflect-metadata';
import os from 'node:os';
import { AbiCoder, zeroPadValue } from 'ethers';
import { createDataSource, runMigrations } from '../src/database/data-source';
import { BlockIndex } from '../src/modules/explorer';
import type { FullBlock } from '../src/modules/explorer/runtime/chain-reader';
import { TokensService } from '../src/modules/tokens';
import { createLogger } from '../src/kernel/logger';
import { createTestDatabase } from '../tests/kit/stack';
import { percentile, round } from './explorer-chain';

const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 20_000);
const TX_PER_BLOCK = 3;
const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 1_000_000);
const hex = (n: number | bigint) => `0x${n.toString(16)}`;
const h32 = (n: number, salt: number) => `0x${salt.toString(16).padStart(8, '0')}${n.toString(16).padStart(56, '0')}`;
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const log = (...args: unknown[]) => console.log(new Date().toISOString().slice(11, 19), ...args);
const coder = AbiCoder.defaultAbiCoder();
const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
const BATCH = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb';
const PING = `0x${'11'.repeat(32)}`;
/** The busy address of the pages (one transfer in five) and the ERC-1155 token of 100 of its transfers. */
const BUSY = `0x${'c0ffee'.padStart(40, '0')}`;
const RARE = `0x${'ee1155'.padStart(40, '0')}`;

/** Synthetic blocks: TX_PER_BLOCK transactions each with one log; `tokens` makes every log a transfer. */
function blocksOf(from: number, count: number, tokens: boolean, salt: number): FullBlock[] {
  const out: FullBlock[] = [];
  for (let n = from; n < from + count; n++) {
    const transactions = [];
    const receipts = [];
    for (let i = 0; i < TX_PER_BLOCK; i++) {
      const hash = h32(n * 10 + i, salt);
      const sender = addr(0x1000 + ((n * 7 + i) % 5000));
      const recipient = addr(0x1000 + ((n * 13 + i * 3) % 5000));
      let topics: string[];
      let data: string;
      if (!tokens) {
        topics = [PING, zeroPadValue(sender, 32)];
        data = coder.encode(['uint256'], [n]);
      } else if (i < 2) {
        topics = [TRANSFER, zeroPadValue(sender, 32), zeroPadValue(recipient, 32)];
        data = coder.encode(['uint256'], [1 + (n % 100)]);
      } else {
        topics = [BATCH, zeroPadValue(sender, 32), zeroPadValue(sender, 32), zeroPadValue(recipient, 32)];
        data = coder.encode(
          ['uint256[]', 'uint256[]'],
          [
            [1n, 2n],
            [1n, 1n],
          ],
        );
      }
      const token = addr(0xaa00 + ((n + i) % 20));
      transactions.push({
        hash,
        from: sender,
        to: token,
        value: '0x0',
        nonce: hex(n),
        gas: '0x5208',
        gasPrice: '0x1',
        input: '0xa9059cbb',
        blockNumber: hex(n),
        transactionIndex: hex(i),
      });
      receipts.push({
        transactionHash: hash,
        blockHash: h32(n, salt + 1),
        status: '0x1',
        gasUsed: '0x5208',
        contractAddress: null,
        logs: [{ address: token, topics, data, logIndex: hex(i), transactionHash: hash }],
      });
    }
    out.push({
      block: {
        number: hex(n),
        hash: h32(n, salt + 1),
        parentHash: n === 0 ? h32(0, 0) : h32(n - 1, salt + 1),
        timestamp: hex(1_700_000_000 + n),
        miner: addr(1),
        gasUsed: '0x0',
        gasLimit: '0x1c9c380',
        extraData: '0x',
        transactions,
      } as unknown as FullBlock['block'],
      receipts: receipts as unknown as FullBlock['receipts'],
    });
  }
  return out;
}

async function writeRate(tokens: boolean): Promise<{ blocksPerSecond: number; seconds: number; transfers: number }> {
  const db = await createTestDatabase();
  const ds = createDataSource(db.url);
  await ds.initialize();
  await runMigrations(ds);
  const index = new BlockIndex(ds);
  const runner = ds.createQueryRunner();
  await runner.connect();
  const salt = tokens ? 0x100 : 0x200;
  // Built beforehand: the figure is the write, as the indexer's fetch runs ahead of it.
  const batches: FullBlock[][] = [];
  for (let from = 0; from < BLOCKS; from += 100)
    batches.push(blocksOf(from, Math.min(100, BLOCKS - from), tokens, salt));
  const started = performance.now();
  let previous: number | null = null;
  for (const batch of batches) {
    if (!(await index.writeBatch(runner, 'mainnet', batch, previous, 0))) throw new Error('progress moved');
    previous = Number(BigInt(batch[batch.length - 1]!.block.number));
  }
  const seconds = (performance.now() - started) / 1000;
  const [{ n }] = await ds.query(`SELECT count(*)::int AS n FROM token_transfers`);
  await runner.release();
  await ds.destroy();
  await db.drop();
  return { blocksPerSecond: round(BLOCKS / seconds), seconds: round(seconds, 2), transfers: n };
}

async function timed(n: number, fn: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 5; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await fn();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 50), 2), p99: round(percentile(times, 99), 2) };
}

async function pages(): Promise<Record<string, unknown>> {
  const db = await createTestDatabase();
  const ds = createDataSource(db.url);
  await ds.initialize();
  await runMigrations(ds);
  // 1,000,000 ERC-20 transfers of one token among 50,000 holders, plus their balances and the token row;
  // a busy address sends one in ten and receives one in ten, and took part in 100 ERC-1155 transfers
  // of another token, all in the oldest tenth of the blocks: the filter few of its transfers pass.
  await ds.query(
    `INSERT INTO token_transfers (network, block_number, log_index, batch_index, tx_hash, token, type, from_address,
       to_address, value, token_id, timestamp)
     SELECT 'mainnet', g / 10, g % 10, -1, '0x' || lpad(to_hex(g), 64, '0'), '0x' || lpad('aa', 40, '0'), 'ERC-20',
            CASE WHEN g % 10 = 0 THEN $2 ELSE '0x' || lpad(to_hex(4096 + g % 50000), 40, '0') END,
            CASE WHEN g % 10 = 5 THEN $2 ELSE '0x' || lpad(to_hex(4096 + (g * 7) % 50000), 40, '0') END,
            g % 1000, NULL, 1700000000 + g / 10
       FROM generate_series(1, $1::int - 100) g`,
    [TRANSFERS, BUSY],
  );
  await ds.query(
    `INSERT INTO token_transfers (network, block_number, log_index, batch_index, tx_hash, token, type, from_address,
       to_address, value, token_id, timestamp)
     SELECT 'mainnet', g * ($1::int / 1000), 10, 0, '0x' || lpad(to_hex($1::int + g), 64, '0'), $3, 'ERC-1155',
            CASE WHEN g % 2 = 0 THEN $2 ELSE '0x' || lpad('b0b', 40, '0') END,
            CASE WHEN g % 2 = 1 THEN $2 ELSE '0x' || lpad('b0b', 40, '0') END, 1, 7, 1700000000
       FROM generate_series(1, 100) g`,
    [TRANSFERS, BUSY, RARE],
  );
  await ds.query(
    `INSERT INTO token_balances (network, token, holder, token_id, value)
     SELECT 'mainnet', '0x' || lpad('aa', 40, '0'), '0x' || lpad(to_hex(4096 + h), 40, '0'), -1, 1 + (h * 7919) % 100000
       FROM generate_series(0, 49999) h`,
  );
  await ds.query(
    `INSERT INTO tokens (network, address, type, first_block, name, symbol, decimals, metadata_read_at, holder_count, transfer_count)
     VALUES ('mainnet', '0x' || lpad('aa', 40, '0'), 'ERC-20', 0, 'Bench', 'BNC', 18, now(), 50000, $1),
            ('mainnet', $2, 'ERC-1155', 0, 'Rare', 'RARE', NULL, now(), 2, 100)`,
    [TRANSFERS - 100, RARE],
  );
  // As autovacuum leaves a table that is mostly history: its visibility map set (index-only walks).
  await ds.query('VACUUM ANALYZE');
  const tokens = new TokensService(
    ds,
    async () => {
      throw new Error('no node in this benchmark');
    },
    { lastBlock: async () => null, version: () => 0, wait: async () => undefined },
    createLogger('silent'),
  );
  const token = `0x${'aa'.padStart(40, '0')}`;
  const holder = `0x${(4096 + 1234).toString(16).padStart(40, '0')}`;
  const first = await tokens.addressTransfers(holder, null, null, null, null, 25, null);
  const results = {
    transfers: TRANSFERS,
    addressTransfersFirstPage: await timed(300, () =>
      tokens.addressTransfers(holder, null, null, null, null, 25, null),
    ),
    addressTransfersNextPage: await timed(300, () =>
      tokens.addressTransfers(holder, null, null, null, null, 25, first.nextCursor),
    ),
    holdersFirstPage: await timed(300, () => tokens.holders(token, null, 25, null)),
    holdersPage100: await timed(300, () => tokens.holders(token, null, 100, null)),
    tokenTransfersFirstPage: await timed(300, () => tokens.tokenTransfers(token, null, 25, null)),
    busyAddressFirstPage: await timed(300, () => tokens.addressTransfers(BUSY, null, null, null, null, 25, null)),
    busyAddressOfType: await timed(300, () => tokens.addressTransfers(BUSY, null, 'ERC-1155', null, null, 25, null)),
    busyAddressOfToken: await timed(300, () => tokens.addressTransfers(BUSY, null, null, RARE, null, 25, null)),
  };
  await ds.destroy();
  await db.drop();
  return results;
}

async function main(): Promise<void> {
  log(`machine: ${os.cpus().length} cpus (${os.cpus()[0]?.model}), ${round(os.totalmem() / 2 ** 30)} GiB`);
  const plain = await writeRate(false);
  log(`plain blocks: ${JSON.stringify(plain)}`);
  const heavy = await writeRate(true);
  log(`token-heavy blocks: ${JSON.stringify(heavy)}`);
  const latency = await pages();
  log(`pages (ms): ${JSON.stringify(latency)}`);
  console.log(JSON.stringify({ blocks: BLOCKS, plain, tokenHeavy: heavy, pages: latency }, null, 2));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
