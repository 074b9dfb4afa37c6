/* eslint-disable @typescript-eslint/no-explicit-any -- API responses and messages are asserted field by field */
// Webhooks fed by the real sources: contract events from the block index and the transaction
// records of invokes, through the service's own delivery worker (no worker or source of the test's).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { client, type Client } from './kit/http';
import { deployRegistered, newKey } from './kit/flows';
import { login, type LoggedIn } from './kit/login';
import { COUNTER_SOURCE } from './kit/solidity';
import { startStack, type Stack } from './kit/stack';

interface Message {
  path: string;
  body: string;
  headers: Record<string, string>;
  parsed: { id: string; type: string; createdAt: string; data: any };
}

let stack: Stack;
let api: Client;
let dev: LoggedIn;
let counter: { id: string; address: string };
let apiKey: string;
let server: http.Server;
let base = '';
const messages: Message[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor<T>(what: string, fn: () => T | undefined, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      messages.push({ path: req.url ?? '', body, headers, parsed: JSON.parse(body) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stack = await startStack();
  api = client(stack.url);
  dev = await login(api, stack.ca);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
  counter = await deployRegistered(api, dev, COUNTER_SOURCE);
  apiKey = (await newKey(api, dev)).apiKey;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  server?.close();
});

async function createWebhook(body: Record<string, unknown>): Promise<Webhook> {
  const res = await api.post(`/api/devportal/developers/${dev.developerId}/webhooks`, body, { token: dev.token });
  expect(res.status).toBe(201);
  return new Webhook(res.body.secret);
}

describe('webhooks fed by the service’s own sources', () => {
  it('delivers the contract’s events from the index and every status of its invokes, in order, signed', async () => {
    const events = await createWebhook({
      url: `${base}/events`,
      events: ['contract.event'],
      contractId: counter.id,
      event: 'Incremented',
    });
    const statuses = await createWebhook({
      url: `${base}/statuses`,
      events: ['transaction.status'],
      contractId: counter.id,
    });

    const sent: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await api.post(`/api/devportal/contracts/${counter.id}/invoke/increment`, {}, { apiKey });
      expect(res.status).toBe(201);
      expect(res.body.status).toBe('success');
      sent.push(res.body.transactionId);
    }
    // One more accepted for later: its record goes queued → pending → success by itself.
    const later = await api.post(
      `/api/devportal/contracts/${counter.id}/invoke/increment`,
      {},
      { apiKey, headers: { prefer: 'respond-async' } },
    );
    expect(later.status).toBe(202);
    sent.push(later.body.transactionId);

    const on = (path: string) => messages.filter((m) => m.path === path);
    await waitFor('four events', () => (on('/events').length >= 4 ? true : undefined));
    const delivered = on('/events');
    expect(delivered.map((m) => m.parsed.data.args.count)).toEqual(['1', '2', '3', '4']);
    for (const m of delivered) {
      expect(events.verify(m.body, m.headers)).toBeTruthy();
      expect(m.parsed).toMatchObject({
        type: 'contract.event',
        data: { event: 'Incremented', address: counter.address, args: { by: dev.walletAddress } },
      });
      expect(m.headers['webhook-id']).toBe(m.parsed.id);
    }

    const done = () =>
      sent.every((id) => on('/statuses').some((m) => m.parsed.data.id === id && m.parsed.data.status === 'success'));
    await waitFor('every invoke’s success', () => (done() ? true : undefined));
    for (const m of on('/statuses')) {
      expect(statuses.verify(m.body, m.headers)).toBeTruthy();
      expect(m.parsed.type).toBe('transaction.status');
      expect(m.parsed.data).not.toHaveProperty('developerId');
    }
    for (const id of sent) {
      const seen = on('/statuses')
        .filter((m) => m.parsed.data.id === id)
        .map((m) => m.parsed.data.status);
      // Each record's changes arrive in the order they happened, ending in success.
      expect(seen[seen.length - 1]).toBe('success');
      expect(seen.indexOf('pending')).toBeLessThan(seen.indexOf('success'));
      const record = await api.get(`/api/devportal/transactions/${id}`, { apiKey });
      expect(record.body.status).toBe('success');
    }
    const asyncStatuses = on('/statuses')
      .filter((m) => m.parsed.data.id === later.body.transactionId)
      .map((m) => m.parsed.data.status);
    expect(asyncStatuses).toEqual(['queued', 'pending', 'success']);
  }, 90_000);
});
