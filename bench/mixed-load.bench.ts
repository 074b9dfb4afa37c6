// Mixed load for BENCH_SECONDS (default 300): gateway queries (REST and GraphQL), invokes,
// explorer reads and 500 live-block subscribers at once, against the service as its own process.
// Reports requests/s and p50/p99 per route, 5xx count, service memory over time and event-loop lag.
// Run: npm run bench:mixed
import autocannon from 'autocannon';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { deployRegistered, newKey } from '../tests/kit/flows';
import { TOKEN_SOURCE } from '../tests/kit/solidity';
import { machine, startBenchStack } from './kit';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 300);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 500);

interface Sample {
  at: number;
  rssMiB: number;
  heapMiB: number;
  lagP99Ms: number;
}

async function sample(url: string, started: number): Promise<Sample> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const metric = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)`, 'm').exec(text)?.[1] ?? NaN);
  return {
    at: Math.round((Date.now() - started) / 1000),
    rssMiB: Math.round(metric('process_resident_memory_bytes') / 2 ** 20),
    heapMiB: Math.round(metric('nodejs_heap_size_used_bytes') / 2 ** 20),
    lagP99Ms: Math.round(metric('nodejs_eventloop_lag_p99_seconds') * 1000 * 10) / 10,
  };
}

async function main(): Promise<void> {
  const stack = await startBenchStack({ API_KEY_RATE_LIMIT: '0' });
  try {
    const { api, dev, url } = stack;
    await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
    const token = await deployRegistered(api, dev, TOKEN_SOURCE, ['1000000000']);
    const key = (await newKey(api, dev)).apiKey;

    // Live-block subscribers.
    const received: number[][] = [];
    const clients = Array.from({ length: SUBSCRIBERS }, (_, i) => {
      received[i] = [];
      const client = createClient({
        url: `${url.replace('http', 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        lazy: false,
      });
      client.subscribe<{ liveBlocks: { number: number } }>(
        { query: 'subscription { liveBlocks(network: testnet) { number } }' },
        {
          next: (m) => received[i]!.push(m.data!.liveBlocks.number),
          error: () => undefined,
          complete: () => undefined,
        },
      );
      return client;
    });

    const started = Date.now();
    const samples: Sample[] = [await sample(url, started)];
    const sampler = setInterval(() => void sample(url, started).then((s) => samples.push(s)), 30_000);

    const run = (name: string, connections: number, opts: Partial<autocannon.Options>) =>
      autocannon({ url: opts.url!, connections, duration: SECONDS, ...opts }).then((r) => ({ name, r }));
    const json = { 'content-type': 'application/json' };
    const loads = Promise.all([
      run('POST query/balanceOf (REST)', 10, {
        url: `${url}/api/devportal/contracts/${token.id}/query/balanceOf`,
        method: 'POST',
        headers: { ...json, 'x-api-key': key },
        body: JSON.stringify({ args: [dev.walletAddress] }),
      }),
      run('POST /graphql queryContract', 5, {
        url: `${url}/graphql`,
        method: 'POST',
        headers: { ...json, 'x-api-key': key },
        body: JSON.stringify({
          query: `mutation { queryContract(id: "${token.id}", method: "totalSupply") { result } }`,
        }),
      }),
      run('GET explorer live-blocks', 4, { url: `${url}/api/explorer/live-blocks?network=testnet&limit=10` }),
      run('GET explorer network-status', 2, { url: `${url}/api/explorer/network-status?network=testnet` }),
      run('GET explorer address', 2, { url: `${url}/api/explorer/address/${dev.walletAddress}?network=testnet` }),
    ]);

    // Invokes: 4 loops, one transfer at a time each.
    const invokeLatencies: number[] = [];
    let invokeErrors = 0;
    let invoke5xx = 0;
    const until = Date.now() + SECONDS * 1000;
    const invokes = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (Date.now() < until) {
          const t = performance.now();
          const res = await api.post(
            `/api/devportal/contracts/${token.id}/invoke/transfer`,
            { args: [token.address, '1'] },
            { apiKey: key },
          );
          invokeLatencies.push(performance.now() - t);
          if (res.status !== 201 || res.body.status !== 'success') invokeErrors += 1;
          if (res.status >= 500) invoke5xx += 1;
        }
      }),
    );
    const [results] = await Promise.all([loads, invokes]);
    clearInterval(sampler);
    samples.push(await sample(url, started));
    await Promise.all(clients.map((c) => c.dispose()));

    const pct = (values: number[], q: number) => {
      const s = [...values].sort((a, b) => a - b);
      return Math.round(s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? 0);
    };
    console.log(`\nMachine: ${machine()}; ${SECONDS} s, ${SUBSCRIBERS} live-block subscribers\n`);
    console.log('| route | connections | requests/s | p50 ms | p99 ms | non-2xx | 5xx |');
    console.log('|---|---|---|---|---|---|---|');
    for (const { name, r } of results) {
      console.log(
        `| ${name} | ${r.connections} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${r.non2xx} | ${r['5xx']} |`,
      );
    }
    console.log(
      `| POST invoke/transfer (4 sequential loops) | 4 | ${(invokeLatencies.length / SECONDS).toFixed(1)} | ${pct(invokeLatencies, 0.5)} | ${pct(invokeLatencies, 0.99)} | ${invokeErrors} | ${invoke5xx} |`,
    );
    const counts = received.map((r) => r.length);
    const gaps = received.filter((r) => r.some((n, i) => i > 0 && n !== r[i - 1]! + 1)).length;
    console.log(
      `\nLive blocks: each subscriber received ${Math.min(...counts)} to ${Math.max(...counts)} blocks; subscribers with a gap or disorder: ${gaps}`,
    );
    console.log('\n| t (s) | RSS MiB | heap used MiB | event-loop lag p99 ms |');
    console.log('|---|---|---|---|');
    for (const s of samples) console.log(`| ${s.at} | ${s.rssMiB} | ${s.heapMiB} | ${s.lagP99Ms} |`);
  } finally {
    await stack.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
