/* eslint-disable @typescript-eslint/no-explicit-any -- API responses are asserted field by field */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gatewayUser } from '../kit/flows';
import { client, type ApiResponse, type Client } from '../kit/http';
import { freePort } from '../kit/process';
import { COUNTER_SOURCE } from '../kit/solidity';
import { startStack, type Stack } from '../kit/stack';

// Stoplight Prism as a validating proxy in front of the service, one per OpenAPI document: the
// first-hour flow (login, coins, deploy, gateway calls, history, explorer), successes and errors,
// goes through it, and no response may break its document (Prism's sl-violations header).

const ROOT = path.resolve(__dirname, '../..');
let stack: Stack;
let dir: string;
const proxies: ChildProcess[] = [];
let devportal: Client;
let explorer: Client;
const violations: string[] = [];

async function startPrism(doc: string, upstream: string): Promise<string> {
  const port = await freePort();
  const prism = spawn(
    path.join(ROOT, 'node_modules/.bin/prism'),
    ['proxy', doc, upstream, '-p', String(port), '-h', '127.0.0.1', '--errors=false'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  proxies.push(prism);
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${out}`)), 60_000);
    const seen = (chunk: Buffer) => {
      out += chunk.toString();
      if (/Prism is listening/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    prism.stdout!.on('data', seen);
    prism.stderr!.on('data', seen);
    prism.once('exit', () => reject(new Error(`prism exited:\n${out}`)));
  });
  return `http://127.0.0.1:${port}`;
}

/** A client whose every answer is checked for Prism's violations. */
function checked(baseUrl: string): Client {
  const inner = client(baseUrl);
  const note = (what: string) => (res: ApiResponse) => {
    const header = res.headers.get('sl-violations');
    if (header) violations.push(`${what} → ${res.status}: ${header}`);
    return res;
  };
  return {
    ...inner,
    get: (p: string, opts?: any) => inner.get(p, opts).then(note(`GET ${p}`)),
    post: (p: string, body?: unknown, opts?: any) => inner.post(p, body, opts).then(note(`POST ${p}`)),
    del: (p: string, opts?: any) => inner.del(p, opts).then(note(`DELETE ${p}`)),
  } as Client;
}

beforeAll(async () => {
  stack = await startStack();
  dir = mkdtempSync(path.join(tmpdir(), 'prism-'));
  for (const area of ['devportal', 'explorer']) {
    const doc = await (await fetch(`${stack.url}/api/${area}/openapi.json`)).json();
    writeFileSync(path.join(dir, `${area}.json`), JSON.stringify(doc));
  }
  devportal = checked(await startPrism(path.join(dir, 'devportal.json'), stack.url));
  explorer = checked(await startPrism(path.join(dir, 'explorer.json'), stack.url));
}, 120_000);

afterAll(async () => {
  for (const p of proxies) p.kill('SIGTERM');
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the first-hour flow through Prism validating proxies', () => {
  it('answers as the OpenAPI documents say, successes and errors alike', async () => {
    const { dev, contract, apiKey } = await gatewayUser(devportal, stack.ca, COUNTER_SOURCE);
    const api = '/api/devportal';
    const auth = { token: dev.token };
    expect((await devportal.get(`${api}/auth/me`, auth)).status).toBe(200);
    expect((await devportal.get(`${api}/developers/${dev.developerId}`, auth)).status).toBe(200);
    expect((await devportal.post(`${api}/projects`, { name: 'through prism' }, auth)).status).toBe(201);
    expect((await devportal.get(`${api}/contracts/${contract.id}`, auth)).status).toBe(200);
    expect((await devportal.get(`${api}/developers/${dev.developerId}/contracts`, auth)).status).toBe(200);
    expect((await devportal.get(`${api}/developers/${dev.developerId}/api-keys`, auth)).status).toBe(200);
    const invoked = await devportal.post(`${api}/contracts/${contract.id}/invoke/increment`, undefined, {
      apiKey,
      headers: { 'idempotency-key': 'prism-1' },
    });
    expect(invoked.status).toBe(201);
    expect((await devportal.post(`${api}/contracts/${contract.id}/query/count`, undefined, { apiKey })).status).toBe(
      201,
    );
    expect((await devportal.get(`${api}/developers/${dev.developerId}/wallet-history`, auth)).status).toBe(200);
    expect((await devportal.get(`${api}/developers/${dev.developerId}/analytics`, auth)).status).toBe(200);
    expect((await devportal.get(`${api}/wallets/${dev.walletAddress}/balance`)).status).toBe(200);
    // Documented errors: compilation (422), a state-changing query (400), no such key (404), faucet limit (429).
    const broken = await devportal.post(`${api}/contracts/compile`, { source: 'contract X {' }, auth);
    expect(broken.status).toBe(422);
    expect(
      (await devportal.post(`${api}/contracts/${contract.id}/query/increment`, undefined, { apiKey })).status,
    ).toBe(400);
    expect((await devportal.del(`${api}/api-keys/00000000-0000-0000-0000-000000000000`, auth)).status).toBe(404);
    let drip: ApiResponse;
    do drip = await devportal.post(`${api}/faucet/drip`, undefined, auth);
    while (drip.status === 201);
    expect(drip.status).toBe(429);

    const ex = '/api/explorer';
    expect((await explorer.get(`${ex}/live-blocks?network=testnet&limit=3`)).status).toBe(200);
    expect((await explorer.get(`${ex}/network-status?network=testnet`)).status).toBe(200);
    expect((await explorer.get(`${ex}/tx/${invoked.body.txHash}?network=testnet`)).status).toBe(200);
    expect((await explorer.get(`${ex}/block/1?network=testnet`)).status).toBe(200);
    expect((await explorer.get(`${ex}/address/${contract.address}?network=testnet`)).status).toBe(200);
    expect((await explorer.get(`${ex}/address/${dev.walletAddress}?network=testnet`)).status).toBe(200);
    for (const q of ['1', invoked.body.txHash, dev.walletAddress, 'Counter']) {
      expect((await explorer.get(`${ex}/search?q=${encodeURIComponent(q)}&network=testnet`)).status).toBe(200);
    }
    expect((await explorer.get(`${ex}/verified-assets/recent`)).status).toBe(200);
    expect(violations).toEqual([]);
  }, 180_000);
});
