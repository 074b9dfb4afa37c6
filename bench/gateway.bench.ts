// Gateway throughput against the node it fronts, measured in one run:
//   hot reads (the same balanceOf repeated by 50 connections) and cold reads (distinct arguments
//   each call): eth_call straight to the node (baseline) vs the gateway's REST query vs the
//   JSON-RPC door's eth_call vs GraphQL,
//   with the node's eth_call count during the hot runs; on anvil, then again behind the
//   Besu-faithful front (tests/kit/besu-node.ts); then 100 concurrent invokes from one wallet.
// Run: npm run bench:gateway (BENCH_SECONDS per target, BENCH_ROUNDS rounds after BENCH_WARMUP unmeasured
//   seconds per target, BENCH_BESU=0 to skip Besu)
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Interface } from 'ethers';
import { deployRegistered, newKey } from '../tests/kit/flows';
import { type Client } from '../tests/kit/http';
import { type LoggedIn } from '../tests/kit/login';
import { TOKEN_SOURCE } from '../tests/kit/solidity';
import {
  load,
  machine,
  postgresCpuSeconds,
  processCpuSeconds,
  sequentialLatency,
  startBenchStack,
  startBesuBenchStack,
  type LatencyResult,
  type LoadResult,
} from './kit';

/** bare-proxy.js as its own process, like the service, so it does not share the load generator's event loop. */
async function startBareProxy(nodeUrl: string, fromMemory = false): Promise<{ url: string; stop: () => void }> {
  const args = [path.join(__dirname, 'bare-proxy.js'), nodeUrl, ...(fromMemory ? ['--from-memory'] : [])];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
  });
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.kill('SIGTERM') };
}

interface Target {
  name: string;
  url: string;
  body: string;
  headers?: Record<string, string>;
  bodyFor?: (n: number) => string;
  /** Counted: the node's eth_calls made for the gateway while this target runs. */
  counted?: boolean;
}

/** What a read scenario needs: the node, the service, a registered token and a key. */
interface ReadSetup {
  nodeUrl: string;
  nodeHeaders?: Record<string, string>;
  serviceUrl: string;
  key: string;
  token: { id: string; address: string; abi: unknown[] };
  holder: string;
  /** eth_calls the node has answered for the service so far. */
  ethCalls: () => Promise<number>;
  /** The service's process, whose CPU per request the counted runs report. */
  servicePid: number;
}

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
/** Seconds each target runs unmeasured before the first round: the service's JIT warms up, as the node's code is. */
const warmup = Number(process.env.BENCH_WARMUP ?? 3);

const rpcBody = (to: string, data: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to, data }, 'latest'] });
/** A distinct holder address per request number. */
const holderOf = (n: number) => `0x${(n + 1).toString(16).padStart(40, '0')}`;

async function blockNumber(url: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }),
  });
  return Number(((await res.json()) as { result: string }).result);
}

/** A counter of the service's metrics. */
async function metric(serviceUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${serviceUrl}/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
}

/** The gateway read cache's node calls so far, from the service's own metrics (misses + uncached reads). */
async function metricsEthCalls(serviceUrl: string): Promise<number> {
  return (
    (await metric(serviceUrl, 'gateway_read_cache_misses_total')) +
    (await metric(serviceUrl, 'gateway_read_cache_bypassed_total'))
  );
}

function readTargets(s: ReadSetup): { hot: Target[]; cold: Target[] } {
  const iface = new Interface(s.token.abi as never[]);
  const data = iface.encodeFunctionData('balanceOf', [s.holder]);
  const selector = iface.getFunction('balanceOf')!.selector;
  const apiKey = { 'x-api-key': s.key };
  const rest = `${s.serviceUrl}/api/devportal/contracts/${s.token.id}/query/balanceOf`;
  const gql = (holder: string) =>
    JSON.stringify({
      query: `mutation { queryContract(id: "${s.token.id}", method: "balanceOf", args: ["${holder}"]) { result } }`,
    });
  const restBody = (holder: string) => JSON.stringify({ args: [holder] });
  // What GraphQL clients send: one document, the arguments as variables.
  const gqlVariables = (holder: string) =>
    JSON.stringify({
      query: `mutation($id: ID!, $args: JSON) { queryContract(id: $id, method: "balanceOf", args: $args) { result } }`,
      variables: { id: s.token.id, args: [holder] },
    });
  const coldData = (n: number) => `${selector}${'0'.repeat(24)}${holderOf(n).slice(2)}`;
  return {
    hot: [
      {
        name: 'node eth_call (baseline)',
        url: s.nodeUrl,
        body: rpcBody(s.token.address, data),
        headers: s.nodeHeaders,
      },
      { name: 'gateway REST query', url: rest, body: restBody(s.holder), headers: apiKey, counted: true },
      // What viem, ethers and cast send through the JSON-RPC door (docs/api.md, "JSON-RPC door").
      {
        name: 'JSON-RPC door eth_call',
        url: `${s.serviceUrl}/rpc/testnet`,
        body: rpcBody(s.token.address, data),
        headers: apiKey,
      },
      // As GraphQL clients send it: one document, the arguments as variables (a document with
      // string literals is never compiled: src/schema/compile.ts).
      {
        name: 'gateway GraphQL queryContract',
        url: `${s.serviceUrl}/graphql`,
        body: gqlVariables(s.holder),
        headers: apiKey,
        counted: true,
      },
    ],
    cold: [
      {
        name: 'node eth_call, distinct arguments (baseline)',
        url: s.nodeUrl,
        body: rpcBody(s.token.address, coldData(0)),
        bodyFor: (n) => rpcBody(s.token.address, coldData(n)),
        headers: s.nodeHeaders,
      },
      {
        name: 'JSON-RPC door eth_call, distinct arguments',
        url: `${s.serviceUrl}/rpc/testnet`,
        body: rpcBody(s.token.address, coldData(0)),
        bodyFor: (n) => rpcBody(s.token.address, coldData(4e9 + n)),
        headers: apiKey,
      },
      // Each run starts its own numbering: offsets keep every gateway call's arguments new.
      {
        name: 'gateway REST query, distinct arguments',
        url: rest,
        body: restBody(holderOf(0)),
        bodyFor: (n) => restBody(holderOf(1e9 + n)),
        headers: apiKey,
      },
      {
        name: 'gateway GraphQL queryContract, distinct arguments as variables',
        url: `${s.serviceUrl}/graphql`,
        body: gqlVariables(holderOf(0)),
        bodyFor: (n) => gqlVariables(holderOf(3e9 + n)),
        headers: apiKey,
      },
      {
        name: 'gateway GraphQL queryContract, distinct arguments written inline (a new document each call)',
        url: `${s.serviceUrl}/graphql`,
        body: gql(holderOf(0)),
        bodyFor: (n) => gql(holderOf(2e9 + n)),
        headers: apiKey,
      },
    ],
  };
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

interface Counted {
  name: string;
  /** CPU per request during the run: the service's process, and PostgreSQL's (usage records). */
  serviceCpuUs: number;
  postgresCpuUs: number;
  ethCalls: number;
  /** Of those, reads at `latest`, uncached: the service's head was stale. */
  atLatest: number;
  blocks: number;
}

/**
 * The targets take turns, round after round (the machine is shared and noisy); each target's
 * ratio to the first (the node) is taken within a round, then the median over rounds is printed.
 * For counted targets, the node's eth_calls during the run and the blocks it spanned.
 */
async function runTable(title: string, targets: Target[], setup: ReadSetup): Promise<Counted[]> {
  const perRound: LoadResult[][] = [];
  const counted: Counted[] = [];
  if (warmup > 0) for (const t of targets) await load(t.name, { ...t, seconds: warmup });
  for (let round = 0; round < rounds; round++) {
    const results: LoadResult[] = [];
    for (const t of targets) {
      // The previous run's last requests may still be on their way to the node: not this run's.
      if (t.counted) await new Promise((resolve) => setTimeout(resolve, 1_000));
      const calls = t.counted ? await setup.ethCalls() : 0;
      const latest = t.counted ? await metric(setup.serviceUrl, 'gateway_read_cache_bypassed_total') : 0;
      const from = t.counted ? await blockNumber(setup.nodeUrl, setup.nodeHeaders) : 0;
      const cpu = { service: processCpuSeconds(setup.servicePid), postgres: postgresCpuSeconds() };
      const result = await load(t.name, { ...t, seconds });
      results.push(result);
      if (t.counted) {
        const requests = result.requestsPerSecond * seconds;
        const perRequestUs = (before: number, now: number) => ((now - before) * 1e6) / Math.max(1, requests);
        const to = await blockNumber(setup.nodeUrl, setup.nodeHeaders);
        // The node's blocks during the run, and the one before: the service may still read at it
        // when the run starts (its watcher sees a new block up to one poll after the node).
        counted.push({
          name: t.name,
          serviceCpuUs: perRequestUs(cpu.service, processCpuSeconds(setup.servicePid)),
          postgresCpuUs: perRequestUs(cpu.postgres, postgresCpuSeconds()),
          ethCalls: (await setup.ethCalls()) - calls,
          atLatest: (await metric(setup.serviceUrl, 'gateway_read_cache_bypassed_total')) - latest,
          blocks: to - from + 2,
        });
      }
    }
    perRound.push(results);
  }
  console.log(`\n${title}\n`);
  console.log('| run | requests/s | p50 ms | p99 ms | errors | non-2xx | throughput vs node | ratio per round |');
  console.log('|---|---|---|---|---|---|---|---|');
  targets.forEach((t, i) => {
    const runs = perRound.map((r) => r[i]!);
    const ratios = perRound.map((r) => r[i]!.requestsPerSecond / r[0]!.requestsPerSecond);
    const sum = (f: (r: LoadResult) => number) => runs.reduce((a, r) => a + f(r), 0);
    console.log(
      `| ${t.name} | ${Math.round(median(runs.map((r) => r.requestsPerSecond)))} | ${median(runs.map((r) => r.p50))} | ${median(runs.map((r) => r.p99))} | ${sum((r) => r.errors)} | ${sum((r) => r.non2xx)} | ${median(ratios).toFixed(2)} | ${ratios.map((r) => r.toFixed(2)).join(' ')} |`,
    );
  });
  return counted;
}

function printCounts(counted: Counted[]): void {
  if (counted.length === 0) return;
  console.log(
    '\nThe node’s eth_calls for the gateway during the hot runs (one distinct call), and the CPU each request cost the service and PostgreSQL:\n',
  );
  console.log(
    '| run | eth_calls | of which at latest (head stale) | blocks read (during the run, and the one before) | eth_calls per block | service CPU µs per request | PostgreSQL CPU µs per request |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const c of counted) {
    console.log(
      `| ${c.name} | ${c.ethCalls} | ${c.atLatest} | ${c.blocks} | ${(c.ethCalls / c.blocks).toFixed(2)} | ${c.serviceCpuUs.toFixed(1)} | ${c.postgresCpuUs.toFixed(1)} |`,
    );
  }
}

/** Hot and cold read tables of one node/service pair. */
async function readScenarios(label: string, setup: ReadSetup): Promise<void> {
  const { hot, cold } = readTargets(setup);
  const counted = await runTable(`Hot reads, ${label}: the same call by 50 connections`, hot, setup);
  printCounts(counted);
  await runTable(`Cold reads, ${label}: distinct arguments each call, 50 connections`, cold, setup);
}

async function anvilRun(): Promise<void> {
  const stack = await startBenchStack({
    API_KEY_RATE_LIMIT: '0',
    // Sockets from the service to the node (default 16); a before/after comparison sets both sides alike.
    ...(process.env.BENCH_RPC_MAX_CONNECTIONS
      ? { TESTNET_RPC_MAX_CONNECTIONS: process.env.BENCH_RPC_MAX_CONNECTIONS }
      : {}),
  });
  try {
    const { api, dev } = stack;
    const { token, key } = await gatewaySetup(api, dev);
    const setup: ReadSetup = {
      nodeUrl: stack.nodes.testnet.url,
      serviceUrl: stack.url,
      key,
      token,
      holder: dev.walletAddress,
      ethCalls: () => metricsEthCalls(stack.url),
      servicePid: stack.service.proc.pid!,
    };
    const { hot } = readTargets(setup);
    const proxy = await startBareProxy(stack.nodes.testnet.url);
    const floor: Target = {
      name: 'floor: bare Node proxy to the node (no gateway)',
      url: proxy.url,
      body: hot[0]!.body,
    };
    const memory = await startBareProxy(stack.nodes.testnet.url, true);
    const ceiling: Target = {
      name: 'ceiling: bare Node server answering from memory (no node call, no gateway)',
      url: memory.url,
      body: hot[0]!.body,
    };
    await readScenarios('anvil', setup);
    await runTable(
      'Floor and ceiling: a bare Node proxy forwarding every call, a bare Node server answering from memory',
      [hot[0]!, floor, ceiling],
      setup,
    );
    proxy.stop();
    memory.stop();

    // What each layer adds to one call, without the queueing of 50 saturating connections.
    const latencies: LatencyResult[] = [];
    for (const t of hot) latencies.push(await sequentialLatency(t.name, t));
    const baseLatency = latencies[0]!;
    console.log('\nOne request at a time (one keep-alive connection, 2,000 requests after 500 unmeasured):\n');
    console.log('| run | p50 ms | p99 ms | p50 added |');
    console.log('|---|---|---|---|');
    for (const l of latencies) {
      const added = l === baseLatency ? '-' : `${(l.p50 - baseLatency.p50).toFixed(3)} ms`;
      console.log(`| ${l.name} | ${l.p50.toFixed(3)} | ${l.p99.toFixed(3)} | ${added} |`);
    }

    // 100 concurrent invokes from one wallet.
    const started = Date.now();
    const invokes = await Promise.all(
      Array.from({ length: 100 }, () =>
        api.post(
          `/api/devportal/contracts/${token.id}/invoke/transfer`,
          { args: [token.address, '1'] },
          { apiKey: key },
        ),
      ),
    );
    const invokeSeconds = (Date.now() - started) / 1000;
    const succeeded = invokes.filter((r) => r.status === 201 && r.body.status === 'success').length;
    console.log(
      `\n100 concurrent invokes from one wallet: ${succeeded}/100 succeeded in ${invokeSeconds.toFixed(2)} s`,
    );
  } finally {
    await stack.stop();
  }
}

async function gatewaySetup(
  api: Client,
  dev: LoggedIn,
): Promise<{ token: { id: string; address: string; abi: unknown[] }; key: string }> {
  await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
  const token = await deployRegistered(api, dev, TOKEN_SOURCE, ['1000000']);
  const key = (await newKey(api, dev)).apiKey;
  return { token, key };
}

/** The same reads behind the Besu-faithful front (JWT, 80 sockets, 1-second blocks); it counts the eth_calls itself. */
async function besuRun(): Promise<void> {
  const stack = await startBesuBenchStack({ API_KEY_RATE_LIMIT: '0' });
  try {
    const { token, key } = await gatewaySetup(stack.api, stack.dev);
    const calls = stack.testnet.front.calls;
    let ethCalls = 0;
    await readScenarios('Besu-faithful front', {
      nodeUrl: stack.testnet.front.url,
      nodeHeaders: stack.testnet.front.headers,
      serviceUrl: stack.url,
      servicePid: stack.service.proc.pid!,
      key,
      token,
      holder: stack.dev.walletAddress,
      // Counted by the front itself; the list is emptied first so that it does not grow for the whole run.
      ethCalls: () => {
        ethCalls += calls.filter((m) => m === 'eth_call').length;
        calls.length = 0;
        return Promise.resolve(ethCalls);
      },
    });
  } finally {
    await stack.stop();
  }
}

async function main(): Promise<void> {
  console.log(`\nMachine: ${machine()}`);
  console.log(
    `${rounds} rounds of ${seconds} s per target, 50 connections; medians over the rounds, ratios paired within each round.`,
  );
  await anvilRun();
  if (process.env.BENCH_BESU !== '0') await besuRun();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
