// Gateway throughput against the node it fronts, measured in one run:
//   eth_call balanceOf straight to the node (baseline) vs the gateway's REST query vs GraphQL,
//   then 100 concurrent invokes from one wallet with a 1-second block time.
// Run: npm run bench:gateway
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Interface } from 'ethers';
import { deployRegistered, newKey } from '../tests/kit/flows';
import { TOKEN_SOURCE } from '../tests/kit/solidity';
import { load, machine, sequentialLatency, startBenchStack, type LatencyResult, type LoadResult } from './kit';

/** bare-proxy.js as its own process, like the service, so it does not share the load generator's event loop. */
async function startBareProxy(nodeUrl: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [path.join(__dirname, 'bare-proxy.js'), nodeUrl], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
  });
  return { url: `http://127.0.0.1:${port}/`, stop: () => child.kill('SIGTERM') };
}

async function main(): Promise<void> {
  const stack = await startBenchStack({
    API_KEY_RATE_LIMIT: '0',
    // Sockets from the service to the node (default 16); a before/after comparison sets both sides alike.
    ...(process.env.BENCH_RPC_MAX_CONNECTIONS
      ? { TESTNET_RPC_MAX_CONNECTIONS: process.env.BENCH_RPC_MAX_CONNECTIONS }
      : {}),
  });
  try {
    const { api, dev } = stack;
    await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
    const token = await deployRegistered(api, dev, TOKEN_SOURCE, ['1000000']);
    const key = (await newKey(api, dev)).apiKey;
    const data = new Interface(token.abi as never[]).encodeFunctionData('balanceOf', [dev.walletAddress]);

    const seconds = Number(process.env.BENCH_SECONDS ?? 10);
    const targets = [
      {
        name: 'node eth_call (baseline)',
        url: stack.nodes.testnet.url,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_call',
          params: [{ to: token.address, data }, 'latest'],
        }),
      },
      {
        name: 'gateway REST query',
        url: `${stack.url}/api/devportal/contracts/${token.id}/query/balanceOf`,
        body: JSON.stringify({ args: [dev.walletAddress] }),
        headers: { 'x-api-key': key },
      },
      {
        name: 'gateway GraphQL queryContract',
        url: `${stack.url}/graphql`,
        body: JSON.stringify({
          query: `mutation { queryContract(id: "${token.id}", method: "balanceOf", args: ["${dev.walletAddress}"]) { result } }`,
        }),
        headers: { 'x-api-key': key },
      },
    ];
    const proxy = await startBareProxy(stack.nodes.testnet.url);
    targets.splice(1, 0, {
      name: 'floor: bare Node proxy to the node (no gateway)',
      url: proxy.url,
      body: targets[0]!.body,
    });
    // The machine is shared and noisy: targets take turns, round after round, and each target's
    // ratio to the node is taken within a round (paired), then the median over rounds is reported.
    const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
    const perRound: LoadResult[][] = [];
    for (let round = 0; round < rounds; round++) {
      const results: LoadResult[] = [];
      for (const t of targets) results.push(await load(t.name, { ...t, seconds }));
      perRound.push(results);
    }
    // What each layer adds to one call, without the queueing of 50 saturating connections.
    const latencies: LatencyResult[] = [];
    for (const t of targets) latencies.push(await sequentialLatency(t.name, t));

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

    const median = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    };
    console.log(`\nMachine: ${machine()}\n`);
    console.log(
      `${rounds} rounds of ${seconds} s per target, 50 connections; medians over the rounds, ratios paired within each round.\n`,
    );
    console.log(
      '| run | requests/s | p50 ms | p99 ms | errors | non-2xx | throughput vs node | ratio per round | p50 added |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    targets.forEach((t, i) => {
      const runs = perRound.map((r) => r[i]!);
      const ratios = perRound.map((r) => r[i]!.requestsPerSecond / r[0]!.requestsPerSecond);
      const p50 = median(runs.map((r) => r.p50));
      const baseP50 = median(perRound.map((r) => r[0]!.p50));
      const sum = (f: (r: LoadResult) => number) => runs.reduce((a, r) => a + f(r), 0);
      console.log(
        `| ${t.name} | ${Math.round(median(runs.map((r) => r.requestsPerSecond)))} | ${p50} | ${median(runs.map((r) => r.p99))} | ${sum((r) => r.errors)} | ${sum((r) => r.non2xx)} | ${median(ratios).toFixed(2)} | ${ratios.map((r) => r.toFixed(2)).join(' ')} | ${i === 0 ? '-' : `${p50 - baseP50} ms`} |`,
      );
    });
    proxy.stop();
    const baseLatency = latencies[0]!;
    console.log('\nOne request at a time (one keep-alive connection, 2,000 requests after 500 unmeasured):\n');
    console.log('| run | p50 ms | p99 ms | p50 added |');
    console.log('|---|---|---|---|');
    for (const l of latencies) {
      const added = l === baseLatency ? '-' : `${(l.p50 - baseLatency.p50).toFixed(3)} ms`;
      console.log(`| ${l.name} | ${l.p50.toFixed(3)} | ${l.p99.toFixed(3)} | ${added} |`);
    }
    console.log(
      `\n100 concurrent invokes from one wallet: ${succeeded}/100 succeeded in ${invokeSeconds.toFixed(2)} s`,
    );
  } finally {
    await stack.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
