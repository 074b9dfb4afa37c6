// Where a gateway read's CPU goes, layer by layer, measured in one process (service and client):
//   eth_call through the chain registry → the gateway service → REST over HTTP → GraphQL over HTTP,
//   and GET /healthz for the HTTP stack alone. HTTP rows include the client's own CPU.
// Run: npm run bench:gateway-layers   (N calls per layer, default 20,000, 50 at a time)
import 'reflect-metadata';
import { Interface } from 'ethers';
import { execute, parse } from 'graphql';
import { Pool } from 'undici';
import { createLogger } from '../src/kernel/logger';
import { deployRegistered, newKey } from '../tests/kit/flows';
import { client } from '../tests/kit/http';
import { login } from '../tests/kit/login';
import { TOKEN_SOURCE } from '../tests/kit/solidity';
import { startStack } from '../tests/kit/stack';
import { startLocalNode } from '../src/chain/local-node';
import { machine, productionEnvOn } from './kit';
import type { RequestContext } from '../src/auth/request-context';
import { Session } from '../src/auth/session';

const CONCURRENCY = 50;

/** CPU of this process per call of `fn`, `n` calls kept `CONCURRENCY` at a time, after a warm-up. */
async function cpuPerCall(n: number, fn: () => Promise<unknown>): Promise<{ cpuMicros: number; perSecond: number }> {
  for (let i = 0; i < 1000; i++) await fn();
  const cpu = process.cpuUsage();
  const started = performance.now();
  let left = n;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await fn();
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    cpuMicros: Math.round((used.user + used.system) / n),
    perSecond: Math.round((n / (performance.now() - started)) * 1000),
  };
}

async function main(): Promise<void> {
  const nodeLogger = createLogger('silent');
  const testnet = await startLocalNode({ chainId: 17991, blockTime: 1, logger: nodeLogger });
  const mainnet = await startLocalNode({ chainId: 1991, blockTime: 1, logger: nodeLogger });
  const stack = await startStack({
    ...(await productionEnvOn(testnet, mainnet)),
    API_KEY_RATE_LIMIT: '0',
    DEVELOPER_RATE_LIMIT: '0',
  });
  const pool = new Pool(stack.url, { connections: CONCURRENCY });
  try {
    const api = client(stack.url);
    const dev = await login(api, stack.ca);
    await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
    const token = await deployRegistered(api, dev, TOKEN_SOURCE, ['1000000']);
    const apiKey = (await newKey(api, dev)).apiKey;
    const { chains, gateway, auth, keys } = stack.app.services;
    const data = new Interface(token.abi as never[]).encodeFunctionData('balanceOf', [dev.walletAddress]);
    const schema = stack.app.schema;
    const logger = createLogger('silent');
    const document = parse(
      'mutation Q($id: ID!, $method: String!, $args: JSON) { queryContract(id: $id, method: $method, args: $args) { result } }',
    );
    const post = (path: string, body: string) => async () => {
      const res = await pool.request({
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body,
      });
      await res.body.text();
      if (res.statusCode !== 201 && res.statusCode !== 200) throw new Error(`${path}: HTTP ${res.statusCode}`);
    };
    const layers: Array<[string, () => Promise<unknown>]> = [
      ['eth_call through the chain registry', () => chains.call('testnet', { to: token.address, data })],
      [
        'gateway service query',
        () =>
          gateway.query(new Session({ apiKey }, '127.0.0.1', auth, keys), token.id, 'balanceOf', [dev.walletAddress]),
      ],
      [
        'the same as a GraphQL operation, executed in-process',
        async () => {
          const result = await execute({
            schema,
            document,
            variableValues: { id: token.id, method: 'balanceOf', args: [dev.walletAddress] },
            contextValue: {
              requestId: 'bench',
              session: new Session({ apiKey }, '127.0.0.1', auth, keys),
              logger,
            } satisfies RequestContext,
          });
          if (result.errors) throw result.errors[0];
        },
      ],
      [
        'REST query over HTTP (client included)',
        post(`/api/devportal/contracts/${token.id}/query/balanceOf`, JSON.stringify({ args: [dev.walletAddress] })),
      ],
      [
        'GraphQL queryContract over HTTP (client included)',
        post(
          '/graphql',
          JSON.stringify({
            query: `mutation { queryContract(id: "${token.id}", method: "balanceOf", args: ["${dev.walletAddress}"]) { result } }`,
          }),
        ),
      ],
      [
        'GET /healthz over HTTP (client included)',
        async () => {
          const res = await pool.request({ path: '/healthz', method: 'GET' });
          await res.body.text();
        },
      ],
    ];
    const n = Number(process.env.BENCH_CALLS ?? 20_000);
    console.log(`\nMachine: ${machine()}\n`);
    console.log('| layer | µs CPU per call | calls/s |');
    console.log('|---|---|---|');
    for (const [name, fn] of layers.filter(
      ([name]) => !process.env.BENCH_LAYER || name.includes(process.env.BENCH_LAYER),
    )) {
      const { cpuMicros, perSecond } = await cpuPerCall(n, fn);
      console.log(`| ${name} | ${cpuMicros} | ${perSecond} |`);
    }
  } finally {
    await pool.close();
    await stack.stop();
    await testnet.stop();
    await mainnet.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
