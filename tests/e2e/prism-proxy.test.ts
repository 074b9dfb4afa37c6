/* eslint-disable @typescript-eslint/no-explicit-any -- API responses are asserted field by field */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fund } from '../kit/chain';
import { gatewayUser } from '../kit/flows';
import { client, type ApiResponse, type Client } from '../kit/http';
import { issueDeveloperCertificate, login } from '../kit/login';
import { freePort } from '../kit/process';
import { COUNTER_SOURCE } from '../kit/solidity';
import { startStack, type Stack } from '../kit/stack';

// Stoplight Prism as a validating proxy in front of the service, one per OpenAPI document: the
// first-hour flow (login, coins, deploy, gateway calls, history, explorer), successes and errors,
// and then every other documented route (async answers with Prefer: respond-async, webhooks,
// approval, the contract's documents, logout) go through it; no response may break its document
// (Prism's sl-violations header), and every documented operation must have been called.

const ROOT = path.resolve(__dirname, '../..');
let stack: Stack;
let dir: string;
const proxies: ChildProcess[] = [];
let devportal: Client;
let explorer: Client;
const violations: string[] = [];
/** `METHOD /path` of every call made through the proxies, without the query. */
const called: string[] = [];
const ADMIN_SERIAL = 'IINPRISM000001';

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
    called.push(what.split('?')[0]!);
    const header = res.headers.get('sl-violations');
    if (header) violations.push(`${what} → ${res.status}: ${header}`);
    return res;
  };
  return {
    ...inner,
    get: (p: string, opts?: any) => inner.get(p, opts).then(note(`GET ${p}`)),
    post: (p: string, body?: unknown, opts?: any) => inner.post(p, body, opts).then(note(`POST ${p}`)),
    del: (p: string, opts?: any) => inner.del(p, opts).then(note(`DELETE ${p}`)),
    call: (m: string, p: string, body?: unknown, opts?: any) => inner.call(m, p, body, opts).then(note(`${m} ${p}`)),
  } as Client;
}

beforeAll(async () => {
  stack = await startStack({ ADMIN_SUBJECTS: ADMIN_SERIAL });
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
    // Key policies and rotation (docs/api.md, "API keys").
    const spare = await devportal.post(`${api}/developers/${dev.developerId}/api-keys`, { name: 'spare' }, auth);
    expect(spare.status).toBe(201);
    const policies = { allowedOrigins: ['https://app.example'], allowedIps: ['10.0.0.0/8'], dailyQuota: 10 };
    expect((await devportal.call('PATCH', `${api}/api-keys/${spare.body.id}`, policies, auth)).status).toBe(200);
    expect((await devportal.call('PATCH', `${api}/api-keys/${spare.body.id}`, { colour: 1 }, auth)).status).toBe(400);
    expect((await devportal.post(`${api}/api-keys/${spare.body.id}/rotate`, { graceSeconds: 0 }, auth)).status).toBe(
      201,
    );
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
    // Verification (docs/api.md, "Verification"): a portal contract is verified from its record.
    const verified = await explorer.get(`${ex}/address/${contract.address}/contract?network=testnet`);
    expect(verified.status).toBe(200);
    expect(verified.body.found).toBe(true);
    expect((await explorer.get(`${ex}/address/${dev.walletAddress}/contract?network=testnet`)).body).toEqual({
      found: false,
    });
    expect((await explorer.get(`${ex}/verification/config`)).status).toBe(200);
    // Tokens (docs/api.md, "Tokens"): the portal contract stands in for a token address.
    const holder = dev.walletAddress;
    for (const path of [
      `/address/${holder}/token-transfers?network=testnet`,
      `/address/${holder}/token-balances?network=testnet`,
      `/tokens?network=testnet`,
      `/token/${contract.address}?network=testnet`,
      `/token/${contract.address}/holders?network=testnet`,
      `/token/${contract.address}/transfers?network=testnet`,
    ]) {
      expect({ path, status: (await explorer.get(`${ex}${path}`)).status }).toEqual({ path, status: 200 });
    }
    expect(violations).toEqual([]);
  }, 180_000);

  it('answers every other documented route as documented, async 202s included', async () => {
    const { dev, contract, apiKey } = await gatewayUser(devportal, stack.ca, COUNTER_SOURCE);
    const api = '/api/devportal';
    const auth = { token: dev.token };
    const async = { prefer: 'respond-async' };

    // Prefer: respond-async: 202 {transactionId, status: queued}, declared beside the 201.
    const accepted = await devportal.post(`${api}/contracts/${contract.id}/invoke/increment`, undefined, {
      apiKey,
      headers: async,
    });
    expect([accepted.status, accepted.body.status]).toEqual([202, 'queued']);
    const acceptedDeploy = await devportal.post(
      `${api}/contracts/deploy`,
      { source: COUNTER_SOURCE },
      {
        ...auth,
        headers: async,
      },
    );
    expect([acceptedDeploy.status, acceptedDeploy.body.status]).toEqual([202, 'queued']);
    for (const [id, who] of [
      [accepted.body.transactionId, { apiKey }],
      [acceptedDeploy.body.transactionId, auth],
    ] as const) {
      let record: ApiResponse;
      const until = Date.now() + 60_000;
      do record = await devportal.get(`${api}/transactions/${id}`, who);
      while (['queued', 'pending'].includes(record.body.status) && Date.now() < until);
      expect([record.status, record.body.status]).toEqual([200, 'success']);
    }
    // Transaction control (docs/api.md, "Transactions"): the list, and a mined record cannot be cancelled or retried.
    expect((await devportal.get(`${api}/developers/${dev.developerId}/transactions`, auth)).status).toBe(200);
    expect((await devportal.post(`${api}/transactions/${accepted.body.transactionId}/cancel`, {}, auth)).status).toBe(
      409,
    );
    expect((await devportal.post(`${api}/transactions/${accepted.body.transactionId}/retry`, {}, auth)).status).toBe(
      409,
    );

    // The contract's own documents and events.
    expect((await devportal.get(`${api}/contracts/${contract.id}/swagger`)).status).toBe(200);
    expect((await devportal.get(`${api}/contracts/${contract.id}/openapi.json`)).status).toBe(200);
    expect((await devportal.get(`${api}/contracts/${contract.id}/events`, auth)).status).toBe(200);

    // Webhooks.
    const hook = await devportal.post(
      `${api}/developers/${dev.developerId}/webhooks`,
      { url: 'https://receiver.example/hook', events: ['transaction.status'] },
      auth,
    );
    expect(hook.status).toBe(201);
    expect((await devportal.get(`${api}/developers/${dev.developerId}/webhooks`, auth)).status).toBe(200);
    expect((await devportal.get(`${api}/webhooks/${hook.body.id}/deliveries`, auth)).status).toBe(200);
    const sample = await devportal.post(`${api}/webhooks/${hook.body.id}/test`, {}, auth);
    expect(sample.status).toBe(201);
    const again = await devportal.post(
      `${api}/webhooks/${hook.body.id}/deliveries/${sample.body.id}/redeliver`,
      {},
      auth,
    );
    expect(again.status).toBe(201);
    expect((await devportal.post(`${api}/webhooks/${hook.body.id}/rotate-secret`, {}, auth)).status).toBe(201);
    expect((await devportal.del(`${api}/webhooks/${hook.body.id}`, auth)).status).toBe(200);

    // Mainnet approval, by an administrator.
    const admin = await login(
      devportal,
      stack.ca,
      await issueDeveloperCertificate(stack.ca, { serialNumber: ADMIN_SERIAL }),
    );
    const toReject = await devportal.post(
      `${api}/contracts/deploy`,
      { source: COUNTER_SOURCE, network: 'mainnet' },
      auth,
    );
    const toApprove = await devportal.post(
      `${api}/contracts/deploy`,
      { source: COUNTER_SOURCE, network: 'mainnet' },
      auth,
    );
    expect([toReject.status, toApprove.status]).toEqual([201, 201]);
    expect((await devportal.get(`${api}/admin/contracts`, { token: admin.token })).status).toBe(200);
    expect((await devportal.get(`${api}/admin/contracts`, auth)).status).toBe(403);
    const rejected = await devportal.post(
      `${api}/admin/contracts/${toReject.body.id}/reject`,
      { reason: 'no' },
      {
        token: admin.token,
      },
    );
    expect([rejected.status, rejected.body.status]).toEqual([201, 'rejected']);
    await fund(stack, 'mainnet', dev.walletAddress, '5');
    const approved = await devportal.post(`${api}/admin/contracts/${toApprove.body.id}/approve`, undefined, {
      token: admin.token,
    });
    expect([approved.status, approved.body.status]).toEqual([201, 'deployed']);

    // Last: logout ends the token.
    expect((await devportal.post(`${api}/auth/logout`, undefined, auth)).status).toBe(201);
    expect((await devportal.get(`${api}/auth/me`, auth)).status).toBe(401);
    expect(violations).toEqual([]);
  }, 240_000);

  it('answers a contract’s own operations as its openapi.json says, the async 202 included', async () => {
    const { contract, apiKey } = await gatewayUser(devportal, stack.ca, COUNTER_SOURCE);
    const doc = await (await fetch(`${stack.url}/api/devportal/contracts/${contract.id}/openapi.json`)).json();
    const file = path.join(dir, 'contract.json');
    writeFileSync(file, JSON.stringify(doc));
    const own = checked(await startPrism(file, stack.url));
    const base = `/api/devportal/contracts/${contract.id}`;
    expect(Object.keys(doc.paths).sort()).toEqual([`${base}/invoke/increment`, `${base}/query/count`]);
    expect((await own.post(`${base}/query/count`, undefined, { apiKey })).status).toBe(201);
    expect((await own.post(`${base}/invoke/increment`, undefined, { apiKey })).status).toBe(201);
    const accepted = await own.post(`${base}/invoke/increment`, undefined, {
      apiKey,
      headers: { prefer: 'respond-async', 'idempotency-key': 'prism-contract-1' },
    });
    expect([accepted.status, accepted.body.status]).toEqual([202, 'queued']);
    // A documented error: a key that does not verify (401).
    expect((await own.post(`${base}/query/count`, undefined, { apiKey: 'svc_wrong' })).status).toBe(401);
    expect(violations).toEqual([]);
  }, 120_000);

  it('has called every documented operation through the proxies', () => {
    const uncalled: string[] = [];
    for (const area of ['devportal', 'explorer']) {
      const doc = JSON.parse(readFileSync(path.join(dir, `${area}.json`), 'utf8'));
      for (const [template, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
        const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
        for (const method of Object.keys(item)) {
          const hit = called.some((c) => {
            const [m, p] = c.split(' ');
            return m === method.toUpperCase() && pattern.test(p!);
          });
          if (!hit) uncalled.push(`${method.toUpperCase()} ${template}`);
        }
      }
    }
    expect(uncalled).toEqual([]);
  });
});
