// The service's CPU per request on the JSON-RPC door's eth_call and on the gateway's REST query,
// hot (the same call by 50 connections) and cold (distinct arguments each call): work rather than
// throughput, so that a shared, loaded machine still gives comparable figures. The targets take
// turns for BENCH_ROUNDS rounds of BENCH_SECONDS each; the median per target is printed.
//
//   npm run bench:door-cpu      (BENCH_SECONDS=8, BENCH_ROUNDS=3, BENCH_WARMUP=3; BENCH_TARGETS=door,hot
//   runs only the targets whose names hold those words; BENCH_CPU_PROF=<dir> profiles the service)
import 'reflect-metadata';
import { Interface } from 'ethers';
import { deployRegistered, newKey } from '../tests/kit/flows';
import { TOKEN_SOURCE } from '../tests/kit/solidity';
import { load, machine, postgresCpuSeconds, processCpuSeconds, startBenchStack } from './kit';

const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const warmup = Number(process.env.BENCH_WARMUP ?? 3);

const rpcBody = (to: string, data: string) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to, data }, 'latest'] });
const holderOf = (n: number) => `0x${(n + 1).toString(16).padStart(40, '0')}`;
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

interface Target {
  name: string;
  url: string;
  body: string;
  bodyFor?: (n: number) => string;
  headers: Record<string, string>;
}

async function main(): Promise<void> {
  console.log(`Machine: ${machine()}`);
  const profile = process.env.BENCH_CPU_PROF;
  const stack = await startBenchStack({
    API_KEY_RATE_LIMIT: '0',
    // BENCH_CPU_PROF=<dir>: the service writes a V8 CPU profile there when it stops.
    ...(profile ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profile}` } : {}),
  });
  try {
    const { api, dev } = stack;
    await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
    const token = await deployRegistered(api, dev, TOKEN_SOURCE, ['1000000']);
    const key = (await newKey(api, dev)).apiKey;
    const iface = new Interface(token.abi as never[]);
    const selector = iface.getFunction('balanceOf')!.selector;
    const data = iface.encodeFunctionData('balanceOf', [dev.walletAddress]);
    const coldData = (n: number) => `${selector}${'0'.repeat(24)}${holderOf(n).slice(2)}`;
    const headers = { 'x-api-key': key };
    const door = `${stack.url}/rpc/testnet`;
    const rest = `${stack.url}/api/devportal/contracts/${token.id}/query/balanceOf`;
    // Each run starts its numbering at 0: a new offset per run keeps every cold call's arguments new.
    let salt = 0;
    const all: Target[] = [
      { name: 'hot: door eth_call', url: door, body: rpcBody(token.address, data), headers },
      { name: 'hot: REST query', url: rest, body: JSON.stringify({ args: [dev.walletAddress] }), headers },
      {
        name: 'cold: door eth_call',
        url: door,
        body: rpcBody(token.address, coldData(0)),
        bodyFor: (n) => rpcBody(token.address, coldData(4e9 + n + salt)),
        headers,
      },
      {
        name: 'cold: REST query',
        url: rest,
        body: JSON.stringify({ args: [holderOf(0)] }),
        bodyFor: (n) => JSON.stringify({ args: [holderOf(1e9 + n + salt)] }),
        headers,
      },
    ];
    // BENCH_TARGETS=door,hot: only the targets whose name holds every word given.
    const only = (process.env.BENCH_TARGETS ?? '').split(',').filter(Boolean);
    const targets = all.filter((t) => only.every((w) => t.name.includes(w)));
    const pid = stack.service.proc.pid!;
    const perTarget = targets.map(() => ({ us: [] as number[], pg: [] as number[], rps: [] as number[], bad: 0 }));
    if (warmup > 0) for (const t of targets) await load(t.name, { ...t, seconds: warmup });
    for (let r = 0; r < rounds; r++) {
      for (const [i, t] of targets.entries()) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const cpu = processCpuSeconds(pid);
        const pg = postgresCpuSeconds();
        salt = Math.floor(Math.random() * 1e8);
        const result = await load(t.name, { ...t, seconds });
        const requests = Math.max(1, result.requestsPerSecond * seconds);
        perTarget[i]!.us.push(((processCpuSeconds(pid) - cpu) * 1e6) / requests);
        perTarget[i]!.pg.push(((postgresCpuSeconds() - pg) * 1e6) / requests);
        perTarget[i]!.rps.push(result.requestsPerSecond);
        perTarget[i]!.bad += result.errors + result.non2xx;
      }
    }
    console.log(`\n${rounds} rounds of ${seconds} s, 50 connections; medians over the rounds\n`);
    console.log('| run | service CPU µs per request | per round | PostgreSQL CPU µs | requests/s | errors + non-2xx |');
    console.log('|---|---|---|---|---|---|');
    targets.forEach((t, i) => {
      const p = perTarget[i]!;
      console.log(
        `| ${t.name} | ${median(p.us).toFixed(1)} | ${p.us.map((u) => u.toFixed(0)).join(' ')} | ${median(p.pg).toFixed(1)} | ${Math.round(median(p.rps))} | ${p.bad} |`,
      );
    });
  } finally {
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
