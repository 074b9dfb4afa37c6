// Would a second thread lift hot reads on this machine, where the load generator shares the two
// cores? A bare Node HTTP server that spends a fixed CPU time on each request (BENCH_WORK_US,
// default 35 µs: about what the edge's steps and the GraphQL operation cost a hot read) and
// answers with a hot read's headers, on one thread or on two worker threads sharing the port
// (listen's `reusePort`, Linux), loaded as bench:gateway loads (autocannon, 50 connections), with
// anvil's eth_call in the same run as the baseline. Each server runs as its own process.
// Run: npm run bench:threads   (BENCH_SECONDS per run, default 6; BENCH_ROUNDS, default 3)
import { spawn } from 'node:child_process';
import http from 'node:http';
import { isMainThread, Worker, workerData } from 'node:worker_threads';
import { startLocalNode } from '../src/chain/local-node';
import { freePort } from '../src/kernel/ports';
import { createLogger } from '../src/kernel/logger';
import { load, machine, processCpuSeconds } from './kit';

const ANSWER = JSON.stringify({ result: '1000000', blockNumber: 12 });

/** The server side: `threads` threads answering on `port`, each busy `workUs` per request. */
function serve(port: number, workUs: number): void {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const until = process.hrtime.bigint() + BigInt(workUs * 1000);
      while (process.hrtime.bigint() < until);
      res.writeHead(201, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': ANSWER.length,
        'x-request-id': '5a4c9a3e-3f0b-4c2e-9a59-2a8f7d1c0b11',
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'cache-control': 'no-store',
        'x-block-number': '12',
      });
      res.end(ANSWER);
    });
  });
  server.listen({ port, host: '127.0.0.1', reusePort: true }, () => console.log('listening'));
}

async function startServer(threads: number, workUs: number): Promise<{ url: string; pid: number; stop(): void }> {
  const port = await freePort();
  const child = spawn(process.execPath, [__filename, 'serve', String(threads), String(port), String(workUs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let listening = 0;
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    child.stdout.on('data', (d: Buffer) => {
      listening += d.toString().split('listening').length - 1;
      if (listening >= threads) resolve();
    });
  });
  return { url: `http://127.0.0.1:${port}/`, pid: child.pid!, stop: () => child.kill('SIGKILL') };
}

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 6);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const workUs = Number(process.env.BENCH_WORK_US ?? 35);
  console.log(`\nMachine: ${machine()}`);
  console.log(`${rounds} rounds of ${seconds} s per row, 50 connections, ${workUs} µs of work per request.\n`);
  const node = await startLocalNode({ chainId: 17991, blockTime: 1, logger: createLogger('silent') });
  // eth_call of the identity precompile: a call the node answers without touching state.
  const rpc = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'eth_call',
    params: [{ to: `0x${'0'.repeat(39)}4`, data: '0x70a08231' }, 'latest'],
  });
  try {
    console.log('| round | anvil eth_call | one thread | two threads (reusePort) | two against one |');
    console.log('|---|---|---|---|---|');
    for (let round = 1; round <= rounds; round++) {
      const anvil = await load('anvil', { url: node.url, body: rpc, seconds });
      const row: string[] = [];
      const rates: number[] = [];
      for (const threads of [1, 2]) {
        const server = await startServer(threads, workUs);
        try {
          await load('warm-up', { url: server.url, body: '{}', seconds: 2 });
          const before = processCpuSeconds(server.pid);
          const r = await load(`${threads}`, { url: server.url, body: '{}', seconds });
          const cpu = (processCpuSeconds(server.pid) - before) / seconds;
          rates.push(r.requestsPerSecond);
          row.push(
            `${r.requestsPerSecond.toLocaleString('en-US')}/s (${(r.requestsPerSecond / anvil.requestsPerSecond).toFixed(2)}), ${Math.round(cpu * 100)}% CPU`,
          );
        } finally {
          server.stop();
        }
      }
      console.log(
        `| ${round} | ${anvil.requestsPerSecond.toLocaleString('en-US')}/s | ${row[0]} | ${row[1]} | ${(rates[1]! / rates[0]!).toFixed(2)} |`,
      );
    }
  } finally {
    await node.stop();
  }
}

if (process.argv[2] === 'serve') {
  const [threads, port, workUs] = process.argv.slice(3).map(Number) as [number, number, number];
  if (threads > 1) for (let i = 0; i < threads; i++) new Worker(__filename, { workerData: { port, workUs } });
  else serve(port, workUs);
} else if (!isMainThread) {
  const { port, workUs } = workerData as { port: number; workUs: number };
  serve(port, workUs);
} else {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
