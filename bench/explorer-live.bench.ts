// Explorer benchmark 2: live-block delivery latency over graphql-ws, from the moment the node has
// mined (and announces) a block to its arrival at each subscriber; 1 subscriber (baseline), then
// 1,000 subscribers (and more, BENCH_SUBSCRIBERS=1000,10000) on one service process (its own
// process, so the clients do not share its event loop), with the service's resident memory before
// and with them. The service follows the node over its WebSocket (MAINNET_WS_URL, docs/api.md
// "Operations"); BENCH_NODE_WS=0 measures the polling fallback instead.
//
//   npm run bench:live-blocks      (BENCH_SUBSCRIBERS=1000, BENCH_LIVE_BLOCKS=30, BENCH_NODE_WS=1)
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { startLocalNode } from '../src/chain/local-node';
import { createLogger } from '../src/kernel/logger';
import { serviceEnv, spawnService } from '../tests/kit/process';
import { createTestDatabase } from '../tests/kit/stack';
import { percentile, round, rpc } from './explorer-chain';

const SUBSCRIBERS = (process.env.BENCH_SUBSCRIBERS ?? '1000').split(',').map(Number);
const NODE_WS = process.env.BENCH_NODE_WS !== '0';
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
  /** The service's resident memory with the subscribers connected, and its growth per subscriber. */
  serviceRssMiB: number;
  perSubscriberKiB: number;
}

/** Resident memory of a process (Linux /proc), in bytes. */
function rssOf(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number(line[1]) * 1024 : NaN;
}

/** Opens `count` WebSocket connections, each with a liveBlocks subscription; mines `blocks` blocks, about one a second. */
async function measure(
  wsUrl: string,
  nodeUrl: string,
  servicePid: number,
  count: number,
  blocks: number,
): Promise<Round> {
  const rssBefore = rssOf(servicePid);
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
  await new Promise((r) => setTimeout(r, 1_000 + count / 5)); // let every subscription reach the server
  if (ready < count) log(`only ${ready} of ${count} clients connected`);
  const rssWith = rssOf(servicePid);

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
    serviceRssMiB: round(rssWith / 2 ** 20),
    perSubscriberKiB: round((rssWith - rssBefore) / 1024 / count),
  };
}

async function main(): Promise<void> {
  log(`machine: ${os.cpus().length} cpus (${os.cpus()[0]?.model}), ${round(os.totalmem() / 2 ** 30)} GiB`);
  const mainnet = await startLocalNode({ chainId: 1991, blockTime: 86_400, logger });
  const testnet = await startLocalNode({ chainId: 17991, blockTime: 86_400, logger });
  const db = await createTestDatabase();
  const ws = (url: string) => url.replace(/^http/, 'ws');
  const service = await spawnService(
    serviceEnv(
      { databaseUrl: db.url, testnetUrl: testnet.url, mainnetUrl: mainnet.url },
      {
        LOG_LEVEL: 'warn',
        WS_CONNECTIONS_PER_IP: String(Math.max(10_000, ...SUBSCRIBERS) + 100),
        ...(NODE_WS ? { MAINNET_WS_URL: ws(mainnet.url), TESTNET_WS_URL: ws(testnet.url) } : {}),
      },
    ),
  );
  try {
    log(`service follows the node ${NODE_WS ? 'over its WebSocket' : 'by polling'}`);
    const wsUrl = `${service.url.replace('http', 'ws')}/graphql`;
    const pid = service.proc.pid!;
    const baseline = await measure(wsUrl, mainnet.url, pid, 1, BLOCKS);
    log('1 subscriber:', JSON.stringify(baseline));
    const rounds: Round[] = [];
    for (const count of SUBSCRIBERS) {
      const many = await measure(wsUrl, mainnet.url, pid, count, BLOCKS);
      log(`${count} subscribers:`, JSON.stringify(many));
      rounds.push(many);
    }
    const result = {
      nodeWebSocket: NODE_WS,
      baseline,
      rounds,
      ratio: rounds.map((many) => ({
        subscribers: many.subscribers,
        p50: round(many.p50 / baseline.p50, 2),
        p99: round(many.p99 / baseline.p99, 2),
      })),
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
