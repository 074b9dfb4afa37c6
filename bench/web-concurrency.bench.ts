// Gateway hot reads with WEB_CONCURRENCY=2 against 1, in the same run, as an outside client sees
// them: the built service (what `npm start` runs) in production mode with usage recording on, one
// autocannon process (50 connections) on the same cores as the service, PostgreSQL and the node;
// anvil's own eth_call of the same read as the baseline. Both services run on one database and
// the same two chains; each round loads the node, then one worker, then two workers.
// Run: npm run bench:web-concurrency   (BENCH_SECONDS per run, default 10; BENCH_ROUNDS, default 3;
// BENCH_FACE=door loads the JSON-RPC door's eth_call of the same read instead of the REST query)
import 'reflect-metadata';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Interface } from 'ethers';
import { deployRegistered, newKey } from '../tests/kit/flows';
import { serviceEnv, spawnService } from '../tests/kit/process';
import { TOKEN_SOURCE } from '../tests/kit/solidity';
import { load, machine, productionEnvOn, startBenchStack } from './kit';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

async function main(): Promise<void> {
  console.log(
    `\nMachine: ${machine()}; load average before: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const face = process.env.BENCH_FACE === 'door' ? 'door' : 'rest';
  console.log(
    `${rounds} rounds of ${seconds} s per column, 50 connections, a hot ${face === 'door' ? 'JSON-RPC door eth_call' : 'REST query'} (balanceOf).\n`,
  );
  const one = await startBenchStack({ API_KEY_RATE_LIMIT: '0', WEB_CONCURRENCY: '1' });
  const { api, dev, nodes } = one;
  await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
  const token = await deployRegistered(api, dev, TOKEN_SOURCE, ['1000000']);
  const key = (await newKey(api, dev)).apiKey;
  const caFile = path.join(mkdtempSync(path.join(tmpdir(), 'devportal-bench-ca-')), 'ca.pem');
  writeFileSync(caFile, one.ca.certificatePem);
  const two = await spawnService(
    serviceEnv(
      {
        databaseUrl: one.databaseUrl,
        testnetUrl: nodes.testnet.url,
        mainnetUrl: nodes.mainnet.url,
        trustedCaFile: caFile,
      },
      {
        ...(await productionEnvOn(nodes.testnet, nodes.mainnet)),
        LOG_LEVEL: 'warn',
        API_KEY_RATE_LIMIT: '0',
        WEB_CONCURRENCY: '2',
      },
    ),
  );
  const iface = new Interface(token.abi as never[]);
  const rpc = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'eth_call',
    params: [{ to: token.address, data: iface.encodeFunctionData('balanceOf', [dev.walletAddress]) }, 'latest'],
  });
  const body = face === 'door' ? rpc : JSON.stringify({ args: [dev.walletAddress] });
  const rest = (url: string) =>
    face === 'door' ? `${url}/rpc/testnet/${key}` : `${url}/api/devportal/contracts/${token.id}/query/balanceOf`;
  const headers: Record<string, string> = face === 'door' ? {} : { 'x-api-key': key };
  try {
    for (const url of [one.url, two.url]) await load('warm-up', { url: rest(url), body, headers, seconds: 3 });
    console.log('| round | anvil eth_call | 1 worker | 2 workers | 2 against 1 |');
    console.log('|---|---|---|---|---|');
    for (let round = 1; round <= rounds; round++) {
      const anvil = await load('anvil', { url: nodes.testnet.url, body: rpc, seconds });
      const a = await load('1', { url: rest(one.url), body, headers, seconds });
      const b = await load('2', { url: rest(two.url), body, headers, seconds });
      for (const r of [a, b])
        if (r.errors + r.non2xx > 0) throw new Error(`${r.name}: ${r.errors} errors, ${r.non2xx} non-2xx`);
      const cell = (r: typeof a) =>
        `${r.requestsPerSecond.toLocaleString('en-US')}/s (${(r.requestsPerSecond / anvil.requestsPerSecond).toFixed(2)}), p99 ${r.p99} ms`;
      console.log(
        `| ${round} | ${anvil.requestsPerSecond.toLocaleString('en-US')}/s | ${cell(a)} | ${cell(b)} | ${(b.requestsPerSecond / a.requestsPerSecond).toFixed(2)} |`,
      );
    }
    console.log(
      `\nLoad average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
  } finally {
    await two.stop();
    await one.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
