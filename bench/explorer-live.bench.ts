// Explorer benchmark 2: live-block delivery latency, from the moment the node has mined (and
// announces) a block to its arrival at each subscriber, on both faces: GraphQL's liveBlocks over
// graphql-ws and the JSON-RPC door's eth_subscribe newHeads (docs/api.md, "JSON-RPC door"); 1
// subscriber (baseline), then 1,000 subscribers (and more, BENCH_SUBSCRIBERS=1000,10000) on one
// service process (its own process, so the clients do not share its event loop), with the
// service's resident memory before and with them. The service follows the node over its WebSocket
// (MAINNET_WS_URL, docs/api.md "Operations"); BENCH_NODE_WS=0 measures the polling fallback instead.
//
//   npm run bench:live-blocks      (BENCH_SUBSCRIBERS=1000, BENCH_LIVE_BLOCKS=30, BENCH_NODE_WS=1,
//                                   BENCH_FACES=liveBlocks,newHeads; BENCH_CPU_PROF=<dir> profiles the service)
import 'reflect-metadata';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startLocalNode } from '../src/chain/local-node';
import { createLogger } from '../src/kernel/logger';
import { createDevCa } from '../src/modules/accounts/eds/dev-ca';
import { newKey } from '../tests/kit/flows';
import { client } from '../tests/kit/http';
import { login } from '../tests/kit/login';
import { serviceEnv, spawnService } from '../tests/kit/process';
import { createTestDatabase } from '../tests/kit/stack';
import { percentile, round, rpc } from './explorer-chain';
import { processCpuSeconds } from './kit';

const SUBSCRIBERS = (process.env.BENCH_SUBSCRIBERS ?? '1000').split(',').map(Number);
const NODE_WS = process.env.BENCH_NODE_WS !== '0';
const BLOCKS = Number(process.env.BENCH_LIVE_BLOCKS ?? 30);
const FACES = (process.env.BENCH_FACES ?? 'liveBlocks,newHeads').split(',').filter(Boolean) as Face[];
const logger = createLogger('silent');
const log = (...args: unknown[]) => console.log(new Date().toISOString().slice(11, 19), ...args);

/** GraphQL's liveBlocks over graphql-ws, or the JSON-RPC door's eth_subscribe newHeads. */
type Face = 'liveBlocks' | 'newHeads';

/** One subscriber: ready once its subscription is in place; `onBlock` runs for each block number it receives. */
interface Subscriber {
  ready: Promise<void>;
  dispose(): Promise<void>;
}

/** Where each face is reached: the GraphQL WebSocket, and the door's WebSocket with an API key. */
interface Doors {
  graphql: string;
  rpc: string;
}

function liveBlocksSubscriber(url: string, onBlock: (n: number) => void): Subscriber {
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  const ws = createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false, on: { connected } });
  ws.subscribe<{ liveBlocks: { number: number } }>(
    { query: 'subscription { liveBlocks(network: mainnet) { number hash parentHash timestamp transactionCount } }' },
    {
      next: ({ data }) => onBlock(data!.liveBlocks.number),
      error: (e) => console.error('subscription error', e),
      complete: () => undefined,
    },
  );
  return { ready, dispose: async () => ws.dispose() };
}

function newHeadsSubscriber(url: string, onBlock: (n: number) => void): Subscriber {
  const socket = new WebSocket(url);
  const ready = new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () =>
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })),
    );
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as {
        id?: number;
        result?: unknown;
        error?: unknown;
        params?: { result: { number: string } };
      };
      if (message.params) onBlock(Number(message.params.result.number));
      else if (message.id === 1 && typeof message.result === 'string') resolve();
      else reject(new Error(`eth_subscribe failed: ${JSON.stringify(message)}`));
    });
  });
  ready.catch((e: unknown) => console.error('newHeads subscriber', e));
  return {
    ready,
    dispose: () =>
      new Promise<void>((resolve) => {
        if (socket.readyState === socket.CLOSED) return resolve();
        socket.once('close', () => resolve());
        socket.close();
      }),
  };
}

interface Round {
  face: Face;
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
  /** CPU time per block while the blocks are pushed: the service's, and the subscribers' (this process). */
  serviceCpuMsPerBlock: number;
  clientCpuMsPerBlock: number;
}

/** Resident memory of a process (Linux /proc), in bytes. */
function rssOf(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number(line[1]) * 1024 : NaN;
}

/** Connections opening at once while subscribers are set up. */
const OPENING = 500;

/**
 * Opens `count` WebSocket connections, each with one subscription of `face`; mines `blocks`
 * blocks, about one a second.
 */
async function measure(
  face: Face,
  doors: Doors,
  nodeUrl: string,
  servicePid: number,
  count: number,
  blocks: number,
): Promise<Round> {
  const rssBefore = rssOf(servicePid);
  const minedAt = new Map<number, number>();
  const latencies: number[] = [];
  /** The last arrival of each block, after its mining (BENCH_VERBOSE=1 prints them). */
  const lastOf = new Map<number, number>();
  const seen: number[][] = Array.from({ length: count }, () => []);
  let ready = 0;
  const clients: Subscriber[] = [];
  for (let i = 0; i < count; i++) {
    const onBlock = (n: number) => {
      const at = performance.now();
      const mined = minedAt.get(n);
      if (mined !== undefined) {
        latencies.push(at - mined);
        lastOf.set(n, Math.max(lastOf.get(n) ?? 0, at - mined));
      }
      seen[i]!.push(n);
    };
    const subscriber =
      face === 'liveBlocks' ? liveBlocksSubscriber(doors.graphql, onBlock) : newHeadsSubscriber(doors.rpc, onBlock);
    clients.push(subscriber);
    subscriber.ready.then(
      () => void ready++,
      () => undefined,
    );
    if (clients.length - ready >= OPENING) {
      const waitUntil = Date.now() + 30_000;
      while (clients.length - ready >= OPENING / 2 && Date.now() < waitUntil)
        await new Promise((r) => setTimeout(r, 20));
    }
  }
  const until = Date.now() + 60_000;
  while (ready < count && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  // graphql-ws's client is ready once connected: let every subscription reach the server.
  await new Promise((r) => setTimeout(r, 1_000 + count / 5));
  if (ready < count) log(`only ${ready} of ${count} ${face} subscribers ready`);
  const rssWith = rssOf(servicePid);

  const first = Number(BigInt((await rpc(nodeUrl, 'eth_blockNumber')) as string)) + 1;
  const serviceCpu = processCpuSeconds(servicePid);
  const clientCpu = process.cpuUsage();
  for (let k = 0; k < blocks; k++) {
    await rpc(nodeUrl, 'evm_mine');
    // The block exists from the moment the node answers.
    minedAt.set(first + k, performance.now());
    // About one block a second, with jitter so that blocks fall at every phase of the watcher's polling.
    await new Promise((r) => setTimeout(r, 900 + Math.random() * 400));
  }
  await new Promise((r) => setTimeout(r, 2_000));
  const serviceCpuMs = (processCpuSeconds(servicePid) - serviceCpu) * 1000;
  const clientCpuUsed = process.cpuUsage(clientCpu);
  const clientCpuMs = (clientCpuUsed.user + clientCpuUsed.system) / 1000;
  await Promise.all(clients.map((c) => c.dispose()));

  const expected = Array.from({ length: blocks }, (_, k) => first + k);
  const complete = seen.every((s) => JSON.stringify(s.filter((n) => n >= first)) === JSON.stringify(expected));
  latencies.sort((a, b) => a - b);
  if (process.env.BENCH_VERBOSE === '1') {
    log(`${face} ${count}: last arrival per block (ms)`, [...lastOf.values()].map((ms) => Math.round(ms)).join(' '));
  }
  return {
    face,
    subscribers: count,
    blocks,
    samples: latencies.length,
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies[latencies.length - 1] ?? NaN),
    complete,
    serviceRssMiB: round(rssWith / 2 ** 20),
    perSubscriberKiB: round((rssWith - rssBefore) / 1024 / count),
    serviceCpuMsPerBlock: round(serviceCpuMs / blocks),
    clientCpuMsPerBlock: round(clientCpuMs / blocks),
  };
}

async function main(): Promise<void> {
  log(`machine: ${os.cpus().length} cpus (${os.cpus()[0]?.model}), ${round(os.totalmem() / 2 ** 30)} GiB`);
  const mainnet = await startLocalNode({ chainId: 1991, blockTime: 86_400, logger });
  const testnet = await startLocalNode({ chainId: 17991, blockTime: 86_400, logger });
  const db = await createTestDatabase();
  const ca = await createDevCa({ commonName: 'Bench CA' });
  const caFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'devportal-bench-')), 'ca.pem');
  writeFileSync(caFile, ca.certificatePem);
  const ws = (url: string) => url.replace(/^http/, 'ws');
  const service = await spawnService(
    serviceEnv(
      { databaseUrl: db.url, testnetUrl: testnet.url, mainnetUrl: mainnet.url, trustedCaFile: caFile },
      {
        LOG_LEVEL: 'warn',
        // One round's connections may still be closing as the next round opens its own.
        WS_CONNECTIONS_PER_IP: String(2 * Math.max(10_000, ...SUBSCRIBERS) + 100),
        // Every door subscriber uses one key: its eth_subscribe calls are not what is measured.
        API_KEY_RATE_LIMIT: '0',
        // BENCH_CPU_PROF=<dir>: the service writes a V8 CPU profile there when it stops.
        ...(process.env.BENCH_CPU_PROF
          ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` }
          : {}),
        ...(NODE_WS ? { MAINNET_WS_URL: ws(mainnet.url), TESTNET_WS_URL: ws(testnet.url) } : {}),
      },
    ),
  );
  try {
    log(`service follows the node ${NODE_WS ? 'over its WebSocket' : 'by polling'}`);
    const api = client(service.url);
    const key = (await newKey(api, await login(api, ca))).apiKey;
    const doors: Doors = { graphql: `${ws(service.url)}/graphql`, rpc: `${ws(service.url)}/rpc/mainnet/${key}` };
    const pid = service.proc.pid!;
    const baselines = new Map<Face, Round>();
    for (const face of FACES) {
      const baseline = await measure(face, doors, mainnet.url, pid, 1, BLOCKS);
      log(`${face}, 1 subscriber:`, JSON.stringify(baseline));
      baselines.set(face, baseline);
    }
    const rounds: Round[] = [];
    for (const count of SUBSCRIBERS) {
      for (const face of FACES) {
        const many = await measure(face, doors, mainnet.url, pid, count, BLOCKS);
        log(`${face}, ${count} subscribers:`, JSON.stringify(many));
        rounds.push(many);
      }
    }
    const result = {
      nodeWebSocket: NODE_WS,
      baselines: [...baselines.values()],
      rounds,
      ratio: rounds.map((many) => {
        const baseline = baselines.get(many.face)!;
        return {
          face: many.face,
          subscribers: many.subscribers,
          p50: round(many.p50 / baseline.p50, 2),
          p99: round(many.p99 / baseline.p99, 2),
        };
      }),
      load: os.loadavg().map((l) => round(l, 2)),
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
