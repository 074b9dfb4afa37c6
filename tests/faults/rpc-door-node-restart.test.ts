/* eslint-disable @typescript-eslint/no-explicit-any -- JSON-RPC messages are asserted field by field */
import { Contract, JsonRpcProvider, Wallet } from 'ethers';
import WebSocket from 'ws';
import type { PublicClient } from 'viem' with { 'resolution-mode': 'import' };
import { ANVIL_KEYS } from '../kit/chain';
import { client } from '../kit/http';
import { login } from '../kit/login';
import type { ServiceProcess } from '../kit/process';
import { COUNTER_SOURCE } from '../kit/solidity';
import { deployRegistered, newKey, sleep, startFaultEnv, waitFor, type FaultEnv } from './fault-env';

// docs/api.md, "JSON-RPC door": subscriptions are served from the service's index, so a client's
// WebSocket to the door outlives the node's restart: viem's watchBlockNumber and a raw `logs`
// subscription go on after it in order, with no block missed or sent twice, on the same socket.

type Viem = typeof import('viem', { with: { 'resolution-mode': 'import' } });

let env: FaultEnv;
let service: ServiceProcess;
let readKey: string;
let counter: { address: string };

beforeAll(async () => {
  env = await startFaultEnv();
  service = await env.spawn();
  const api = client(service.url);
  const dev = await login(api, env.ca);
  const drip = await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
  expect(drip.status).toBe(201);
  counter = await deployRegistered(api, dev, COUNTER_SOURCE);
  readKey = (await newKey(api, dev, { name: 'read', scopes: ['read'] })).apiKey;
}, 90_000);

afterAll(async () => {
  await env?.stop();
});

/** An increment sent straight to the node (not through the service), mined before it returns. */
async function increment(): Promise<string> {
  const provider = new JsonRpcProvider(env.testnet.url, 17991, { staticNetwork: true, cacheTimeout: -1 });
  try {
    const c = new Contract(counter.address, ['function increment()'], new Wallet(ANVIL_KEYS[2]!, provider));
    const receipt = await (await c.getFunction('increment')()).wait();
    return receipt!.hash;
  } finally {
    provider.destroy();
  }
}

it('viem watchBlockNumber and a logs subscription go on across a node restart: in order, no gap, no repeat', async () => {
  const viemLib: Viem = await import('viem');
  const wsUrl = `${service.url.replace(/^http/, 'ws')}/rpc/testnet/${readKey}`;
  const viem = viemLib.createPublicClient({
    transport: viemLib.webSocket(wsUrl, { retryCount: 0, reconnect: false }),
  }) as PublicClient;
  const seen: bigint[] = [];
  const errors: unknown[] = [];
  const stopBlocks = viem.watchBlockNumber({
    onBlockNumber: (n) => seen.push(n),
    onError: (e) => errors.push(e),
  });

  // A raw logs subscription on its own socket, as any client writes one.
  const socket = new WebSocket(wsUrl);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  let closed = false;
  socket.once('close', () => (closed = true));
  const logs: any[] = [];
  let subscription: string | undefined;
  socket.on('message', (data: Buffer) => {
    const msg = JSON.parse(data.toString());
    if (msg.id === 1) subscription = msg.result;
    if (msg.method === 'eth_subscription' && msg.params.subscription === subscription) logs.push(msg.params.result);
  });
  socket.send(
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['logs', { address: counter.address }] }),
  );
  await waitFor('the logs subscription', () => subscription);

  const before = await increment();
  await waitFor('three blocks before the restart', () => (seen.length >= 3 ? true : undefined), 30_000);
  await waitFor('the first log', () => (logs.length >= 1 ? true : undefined), 30_000);

  await env.stopTestnet();
  const headWhenStopped = seen[seen.length - 1]!;
  await sleep(3_000);
  await env.startTestnet();

  const after = await increment();
  await waitFor(
    'three blocks after the restart',
    () => (seen.some((n) => n >= headWhenStopped + 3n) ? true : undefined),
    60_000,
  );
  await waitFor('the second log', () => (logs.length >= 2 ? true : undefined), 30_000);
  await sleep(1_500);
  stopBlocks();

  // Every block once, in order, across the restart.
  for (let i = 1; i < seen.length; i++) expect(seen[i]).toBe(seen[i - 1]! + 1n);
  expect(errors).toEqual([]);
  // Both events, each once, in chain order, on the socket opened before the restart.
  expect(logs.map((l) => l.transactionHash)).toEqual([before, after]);
  expect(logs.every((l) => l.removed === false)).toBe(true);
  expect(closed).toBe(false);
  socket.close();
  await viem.transport.getRpcClient?.().then((rpc: { close(): void }) => rpc.close());
}, 150_000);
