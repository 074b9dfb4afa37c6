// Explorer benchmark 2: live-block delivery latency over graphql-ws, from the moment the node has
// mined a block to its arrival at each subscriber; 1 subscriber (baseline) and 1,000 subscribers
// on one service process (its own process, so the clients do not share its event loop).
//
//   npm run build && node dist/bench/explorer-live.bench.js      (BENCH_SUBSCRIBERS=1000, BENCH_LIVE_BLOCKS=30)
import 'reflect-metadata';
import os from 'node:os';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startLocalNode } from '../src/chain/local-node';
import { createLogger } from '../src/logger';
import { serviceEnv, spawnService } from '../tests/kit/process';
import { createTestDatabase } from '../tests/kit/stack';
import { percentile, round, rpc } from './explorer-chain';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000);
const BLOCKS = Number(process.env.BENCH_LIVE_BLOCKS ?? 30);
const logger = createLogger('silent');
const log = (...args: unknown[]) => console.log(new Date().toISOString().slice(11, 19), ...args);

interface Round {
  subscribers: number;
  blocks: number;
  samples: number;
  p50: number;
  p99: number;
  max: number;
  complete: boolean;
}

/** Opens `count` WebSocket connections, each with a liveBlocks subscription; mines `blocks` blocks, about one a second. */
async function measure(wsUrl: string, nodeUrl: string, count: number, blocks: number): Promise<Round> {
  const minedAt = new Map<number, number>();
  const latencies: number[] = [];
  const seen: number[][] = Array.from({ length: count }, () => []);
  let ready = 0;
  const clients: Client[] = [];
  for (let i = 0; i < count; i++) {
    const ws = createClient({
      url: wsUrl,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: false,
      on: { connected: () => void ready++ },
    });
    clients.push(ws);
    ws.subscribe<{ liveBlocks: { number: number } }>(
      { query: 'subscription { liveBlocks(network: mainnet) { number hash parentHash timestamp transactionCount } }' },
      {
        next: ({ data }) => {
          const n = data!.liveBlocks.number;
          const at = performance.now();
          const mined = minedAt.get(n);
          if (mined !== undefined) latencies.push(at - mined);
          seen[i]!.push(n);
        },
        error: (e) => console.error('subscription error', e),
        complete: () => undefined,
      },
    );
  }
  const until = Date.now() + 60_000;
  while (ready < count && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  await new Promise((r) => setTimeout(r, 1_000)); // let every subscription reach the server

  const first = Number(BigInt((await rpc(nodeUrl, 'eth_blockNumber')) as string)) + 1;
  for (let k = 0; k < blocks; k++) {
    await rpc(nodeUrl, 'evm_mine');
    // The block exists from the moment the node answers.
    minedAt.set(first + k, performance.now());
    // About one block a second, with jitter so that blocks fall at every phase of the watcher's polling.
    await new Promise((r) => setTimeout(r, 900 + Math.random() * 400));
  }
  await new Promise((r) => setTimeout(r, 2_000));
  await Promise.all(clients.map((c) => c.dispose()));

  const expected = Array.from({ length: blocks }, (_, k) => first + k);
  const complete = seen.every((s) => JSON.stringify(s.filter((n) => n >= first)) === JSON.stringify(expected));
  latencies.sort((a, b) => a - b);
  return {
    subscribers: count,
    blocks,
    samples: latencies.length,
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies[latencies.length - 1] ?? NaN),
    complete,
  };
}

async function main(): Promise<void> {
  log(`machine: ${os.cpus().length} cpus (${os.cpus()[0]?.model}), ${round(os.totalmem() / 2 ** 30)} GiB`);
  const mainnet = await startLocalNode({ chainId: 1991, blockTime: 86_400, logger });
  const testnet = await startLocalNode({ chainId: 17991, blockTime: 86_400, logger });
  const db = await createTestDatabase();
  const service = await spawnService(
    serviceEnv({ databaseUrl: db.url, testnetUrl: testnet.url, mainnetUrl: mainnet.url }, { LOG_LEVEL: 'warn' }),
  );
  try {
    const wsUrl = `${service.url.replace('http', 'ws')}/graphql`;
    const baseline = await measure(wsUrl, mainnet.url, 1, BLOCKS);
    log('1 subscriber:', JSON.stringify(baseline));
    const many = await measure(wsUrl, mainnet.url, SUBSCRIBERS, BLOCKS);
    log(`${SUBSCRIBERS} subscribers:`, JSON.stringify(many));
    const result = {
      baseline,
      many,
      ratio: { p50: round(many.p50 / baseline.p50, 2), p99: round(many.p99 / baseline.p99, 2) },
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await service.stop();
    await mainnet.stop();
    await testnet.stop();
    await db.drop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
