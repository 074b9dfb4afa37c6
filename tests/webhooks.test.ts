/* eslint-disable @typescript-eslint/no-explicit-any -- API responses are asserted field by field */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as PgClient } from 'pg';
import { Webhook } from 'standardwebhooks';
import { createLogger } from '../src/kernel/logger';
import type { ContractEventItem } from '../src/modules/events';
import type { TransactionRecordView } from '../src/modules/transactions';
import { WebhookDeliveryWorker, type ContractEventSource, type DeliveryWorkerOptions } from '../src/modules/webhooks';
import { client, type Client } from './kit/http';
import { deployRegistered, newKey } from './kit/flows';
import { login, type LoggedIn } from './kit/login';
import { spawnSibling, type ServiceProcess } from './kit/process';
import { startStack, sqlRows, type Stack } from './kit/stack';

/** A contract with an overloaded event (for AMBIGUOUS_METHOD) and a plain one. */
const SIGNALS_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Signals {
    event Ping(uint256 n);
    event Ping(address who);
    event Pong(uint256 n, address indexed by);
    function fire(uint256 n) external { emit Pong(n, msg.sender); }
}
`;

const logLines: string[] = [];
let stack: Stack;
let api: Client;
let dev: LoggedIn;
let other: LoggedIn;
let signals: { id: string; address: string };
let othersContract: { id: string };
const workers: WebhookDeliveryWorker[] = [];
const silent = createLogger('silent');

const rows = <T = any>(text: string, params: unknown[] = []) => sqlRows<T>(stack, text, params);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Short timings so that retries happen within a test; the logic is the production worker's. */
const FAST: Partial<DeliveryWorkerOptions> = {
  pollMs: 50,
  retryBaseMs: 100,
  retryMinMs: 50,
  retryCapMs: 400,
};

function worker(source?: ContractEventSource, options: Partial<DeliveryWorkerOptions> = {}) {
  const w = new WebhookDeliveryWorker(stack.app.dataSource, stack.app.services.webhooks, source, silent, {
    ...FAST,
    ...options,
  });
  workers.push(w);
  w.start();
  return w;
}

interface Request {
  path: string;
  id: string;
  body: string;
  headers: Record<string, string>;
  answered: number | 'cut';
}

/** A real receiver on 127.0.0.1; `answer` decides each request's fate (status, or a delay first). */
class Receiver {
  readonly requests: Request[] = [];
  /** Requests of one message in progress right now, and the most ever seen at once. */
  private readonly open = new Map<string, number>();
  maxConcurrentPerMessage = 0;
  answer: (req: Omit<Request, 'answered'>, n: number) => Promise<number> = async () => 200;
  private server!: http.Server;
  url = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        const id = headers['webhook-id'] ?? '';
        const seen = { path: req.url ?? '', id, body, headers };
        const now = (this.open.get(id) ?? 0) + 1;
        this.open.set(id, now);
        this.maxConcurrentPerMessage = Math.max(this.maxConcurrentPerMessage, now);
        const record: Request = { ...seen, answered: 'cut' };
        this.requests.push(record);
        const n = this.requests.filter((r) => r.path === seen.path).length;
        res.on('close', () => this.open.set(id, (this.open.get(id) ?? 1) - 1));
        void this.answer(seen, n).then((status) => {
          if (res.destroyed) return;
          record.answered = status;
          res.writeHead(status, { 'content-type': 'text/plain' }).end('x'.repeat(100_000));
        });
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  on(path: string) {
    return this.requests.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

let receiver: Receiver;

beforeAll(async () => {
  stack = await startStack({ LOG_LEVEL: 'debug' }, undefined, logLines);
  api = client(stack.url);
  // The tests drive their own workers (shorter retry timings); the app's own is stopped.
  await stack.app.services.webhookWorker.stop();
  dev = await login(api, stack.ca);
  other = await login(api, stack.ca);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: other.token })).status).toBe(201);
  signals = await deployRegistered(api, dev, SIGNALS_SOURCE);
  othersContract = await deployRegistered(api, other, SIGNALS_SOURCE);
  receiver = new Receiver();
  await receiver.start();
}, 120_000);

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
});

afterAll(async () => {
  await receiver?.stop();
  await stack?.stop();
});

const create = (body: Record<string, unknown>, who: LoggedIn = dev, id = who.developerId) =>
  api.post(`/api/devportal/developers/${id}/webhooks`, body, { token: who.token });

let txCounter = 0;
/** A transaction record as the transactions module would report it. */
function record(owner: LoggedIn, overrides: Partial<TransactionRecordView> = {}): TransactionRecordView {
  txCounter += 1;
  const at = new Date().toISOString();
  return {
    id: randomUUID(),
    kind: 'invoke',
    network: 'testnet',
    contractId: null,
    method: 'fire',
    status: 'pending',
    txHash: `0x${txCounter.toString(16).padStart(64, '0')}`,
    nonce: txCounter,
    blockNumber: null,
    gasUsed: null,
    revertReason: null,
    error: null,
    createdAt: at,
    updatedAt: at,
    history: [{ status: 'queued', at }],
    developerId: owner.developerId,
    ...overrides,
  };
}

/** Reports status changes the way the transactions module does: inside its own database transaction. */
async function statusChanged(...records: TransactionRecordView[]): Promise<void> {
  for (const r of records) {
    await stack.app.dataSource.transaction((m) => stack.app.services.webhooks.transactionStatusChanged(m, r));
  }
}

async function deliveries(webhookId: string, query = '', who: LoggedIn = dev) {
  return api.get(`/api/devportal/webhooks/${webhookId}/deliveries${query}`, { token: who.token });
}

/** Deletes every active webhook of a developer (the 20-webhook cap is per developer). */
async function clearWebhooks(who: LoggedIn): Promise<void> {
  const list = await api.get(`/api/devportal/developers/${who.developerId}/webhooks`, { token: who.token });
  for (const w of list.body.items) await api.del(`/api/devportal/webhooks/${w.id}`, { token: who.token });
}

describe('webhook CRUD and authorization', () => {
  afterAll(() => clearWebhooks(dev));

  it('creates a webhook with a whsec_ secret shown once, no-store, and lists it without the secret', async () => {
    const created = await create({ url: `${receiver.url}/crud`, events: ['transaction.status'] });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: `${receiver.url}/crud`,
      events: ['transaction.status'],
      contractId: null,
      event: null,
      status: 'active',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T.*Z$/),
    });
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);

    const list = await api.get(`/api/devportal/developers/${dev.developerId}/webhooks`, { token: dev.token });
    expect(list.status).toBe(200);
    const { secret, ...listed } = created.body;
    expect(list.body.items).toContainEqual(listed);
    expect(JSON.stringify(list.body)).not.toContain(secret);

    // Stored sealed: neither the secret nor its key bytes are in the row.
    const [row] = await rows('SELECT * FROM webhooks WHERE id = $1', [created.body.id]);
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    expect(Buffer.isBuffer(row.secret_sealed)).toBe(true);
  });

  it('creates a contract.event webhook on an own contract, resolving the event to its signature', async () => {
    const byName = await create({
      url: `${receiver.url}/ev`,
      events: ['contract.event', 'transaction.status', 'contract.event'],
      contractId: signals.id,
      event: 'Pong',
    });
    expect(byName.status).toBe(201);
    expect(byName.body).toMatchObject({
      events: ['contract.event', 'transaction.status'],
      contractId: signals.id,
      event: 'Pong(uint256,address)',
    });
    const bySignature = await create({
      url: `${receiver.url}/ev`,
      events: ['contract.event'],
      contractId: signals.id,
      event: 'Ping(address)',
    });
    expect(bySignature.status).toBe(201);
    expect(bySignature.body.event).toBe('Ping(address)');
  });

  it.each([
    [{ url: 'http://x.test/h', events: [] }, 'VALIDATION_FAILED', 400],
    [{ url: 'http://x.test/h', events: ['block.mined'] }, 'VALIDATION_FAILED', 400],
    [{ url: 'http://x.test/h', events: 'transaction.status' }, 'VALIDATION_FAILED', 400],
    [{ events: ['transaction.status'] }, 'VALIDATION_FAILED', 400],
    [{ url: 'ftp://x.test/h', events: ['transaction.status'] }, 'VALIDATION_FAILED', 400],
    [{ url: 'not a url', events: ['transaction.status'] }, 'VALIDATION_FAILED', 400],
    [{ url: `http://x.test/${'a'.repeat(2048)}`, events: ['transaction.status'] }, 'VALIDATION_FAILED', 400],
    [{ url: 'http://u:p@x.test/h', events: ['transaction.status'] }, 'VALIDATION_FAILED', 400],
    [{ url: 'http://x.test/h', events: ['contract.event'] }, 'VALIDATION_FAILED', 400],
    [{ url: 'http://x.test/h', events: ['transaction.status'], event: 'Pong' }, 'VALIDATION_FAILED', 400],
    [{ url: 'http://x.test/h', events: ['transaction.status'], contractId: 'nope' }, 'VALIDATION_FAILED', 400],
    [
      { url: 'http://x.test/h', events: ['contract.event'], contractId: randomUUID(), event: ' ' },
      'VALIDATION_FAILED',
      400,
    ],
    [{ url: 'http://x.test/h', events: ['transaction.status'], extra: 1 }, 'VALIDATION_FAILED', 400],
  ])('refuses %j with %s', async (body, code, status) => {
    const res = await create(body);
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
  });

  it('keeps each event type once when a request repeats it, and refuses a flood of repeats', async () => {
    const flood = await create({ url: `${receiver.url}/repeated`, events: Array(5000).fill('transaction.status') });
    expect(flood.status).toBe(400);
    expect(flood.body.error.code).toBe('VALIDATION_FAILED');
    const res = await create({ url: `${receiver.url}/repeated`, events: Array(3).fill('transaction.status') });
    expect(res.status).toBe(201);
    expect(res.body.events).toEqual(['transaction.status']);
    const [row] = await rows(`SELECT events FROM webhooks WHERE id = $1`, [res.body.id]);
    expect(row).toEqual({ events: ['transaction.status'] });
    expect((await api.del(`/api/devportal/webhooks/${res.body.id}`, { token: dev.token })).status).toBe(200);
  });

  it('refuses an unknown or ambiguous event, an event without contract.event, and a foreign contract', async () => {
    const base = { url: `${receiver.url}/x`, events: ['contract.event'], contractId: signals.id };
    const unknown = await create({ ...base, event: 'Nope' });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'METHOD_NOT_FOUND']);
    const unknownSig = await create({ ...base, event: 'Ping(bytes32)' });
    expect([unknownSig.status, unknownSig.body.error.code]).toEqual([404, 'METHOD_NOT_FOUND']);
    const ambiguous = await create({ ...base, event: 'Ping' });
    expect([ambiguous.status, ambiguous.body.error.code]).toEqual([400, 'AMBIGUOUS_METHOD']);
    expect(ambiguous.body.error.message).toContain('Ping(uint256)');
    const wrongType = await create({ ...base, events: ['transaction.status'], event: 'Pong' });
    expect([wrongType.status, wrongType.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const foreign = await create({ ...base, contractId: othersContract.id });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const missing = await create({ ...base, contractId: randomUUID() });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('answers 401 without credentials and 403 for another developer’s id', async () => {
    const anonymous = await api.post(`/api/devportal/developers/${dev.developerId}/webhooks`, {
      url: 'http://x.test/h',
      events: ['transaction.status'],
    });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'UNAUTHENTICATED']);
    const anonymousList = await api.get(`/api/devportal/developers/${dev.developerId}/webhooks`);
    expect(anonymousList.status).toBe(401);
    const foreign = await create({ url: 'http://x.test/h', events: ['transaction.status'] }, other, dev.developerId);
    expect([foreign.status, foreign.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const foreignList = await api.get(`/api/devportal/developers/${dev.developerId}/webhooks`, { token: other.token });
    expect([foreignList.status, foreignList.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('answers 404 for another developer’s webhook, and deletes an own one (twice the same)', async () => {
    const mine = await create({ url: `${receiver.url}/del`, events: ['transaction.status'] });
    for (const res of [
      await api.del(`/api/devportal/webhooks/${mine.body.id}`, { token: other.token }),
      await deliveries(mine.body.id, '', other),
      await api.del(`/api/devportal/webhooks/${randomUUID()}`, { token: dev.token }),
      await api.del(`/api/devportal/webhooks/not-a-uuid`, { token: dev.token }),
      await deliveries('not-a-uuid'),
    ]) {
      expect([res.status, res.body.error.code, res.body.error.message]).toEqual([404, 'NOT_FOUND', 'No such webhook']);
    }
    expect((await api.del(`/api/devportal/webhooks/${mine.body.id}`)).status).toBe(401);

    const deleted = await api.del(`/api/devportal/webhooks/${mine.body.id}`, { token: dev.token });
    expect(deleted.status).toBe(200);
    const { secret: _secret, ...info } = mine.body;
    expect(deleted.body).toEqual({ ...info, status: 'deleted' });
    expect((await api.del(`/api/devportal/webhooks/${mine.body.id}`, { token: dev.token })).body).toEqual(deleted.body);
    const list = await api.get(`/api/devportal/developers/${dev.developerId}/webhooks`, { token: dev.token });
    expect(list.body.items.map((w: { id: string }) => w.id)).not.toContain(mine.body.id);
    expect((await deliveries(mine.body.id)).status).toBe(200);
  });

  it('holds at most 20 webhooks per developer (409 INVALID_STATE beyond)', async () => {
    await clearWebhooks(dev);
    const made = await Promise.all(
      Array.from({ length: 21 }, (_, i) => create({ url: `${receiver.url}/cap/${i}`, events: ['transaction.status'] })),
    );
    expect(made.filter((r) => r.status === 201)).toHaveLength(20);
    const refused = made.filter((r) => r.status !== 201);
    expect(refused.map((r) => [r.status, r.body.error.code])).toEqual([[409, 'INVALID_STATE']]);
    await clearWebhooks(dev);
    expect((await create({ url: `${receiver.url}/cap/again`, events: ['transaction.status'] })).status).toBe(201);
  });

  it('serves the same over GraphQL', async () => {
    await clearWebhooks(dev);
    const made = await api.graphql(
      `mutation($id: ID!, $input: CreateWebhookInput!) {
        createWebhook(id: $id, input: $input) { id url events contractId event status secret createdAt }
      }`,
      { id: dev.developerId, input: { url: `${receiver.url}/gql`, events: ['transaction.status'] } },
      { token: dev.token },
    );
    expect(made.body.data.createWebhook).toMatchObject({ status: 'active', secret: expect.stringMatching(/^whsec_/) });
    const listed = await api.graphql(
      `query($id: ID!) { webhooks(id: $id) { items { id status } } }`,
      { id: dev.developerId },
      { token: dev.token },
    );
    expect(listed.body.data.webhooks.items).toEqual([{ id: made.body.data.createWebhook.id, status: 'active' }]);
    const page = await api.graphql(
      `query($w: ID!) { webhookDeliveries(webhookId: $w, limit: 5) { items { id } nextCursor } }`,
      { w: made.body.data.createWebhook.id },
      { token: dev.token },
    );
    expect(page.body.data.webhookDeliveries).toEqual({ items: [], nextCursor: null });
    const gone = await api.graphql(
      `mutation($w: ID!) { deleteWebhook(webhookId: $w) { id status } }`,
      { w: made.body.data.createWebhook.id },
      { token: other.token },
    );
    expect(gone.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});

describe('delivery', () => {
  afterEach(() => clearWebhooks(dev));

  it('retries through a 500 and a timeout, then delivers every message in order, signed', async () => {
    const hook = await create({ url: `${receiver.url}/flaky`, events: ['transaction.status'] });
    const secret: string = hook.body.secret;
    receiver.answer = async (req, n) => {
      if (req.path !== '/flaky') return 200;
      if (n === 1) return 500;
      if (n === 2) await sleep(11_000); // past the 10 s limit: the sender gives up first
      return 200;
    };
    const sent = [1, 2, 3, 4, 5].map((n) => record(dev, { nonce: n, status: n % 2 ? 'pending' : 'success' }));
    await statusChanged(...sent);
    worker();
    const delivered = await waitFor(
      'five messages delivered',
      () => {
        const ok = receiver.on('/flaky').filter((r) => r.answered === 200);
        return ok.length >= 5 ? ok : undefined;
      },
      40_000,
    );
    const all = receiver.on('/flaky');
    // The first message three times (500, cut after 10 s, 200); nothing else before it got through.
    expect(all.slice(0, 3).map((r) => r.id)).toEqual([all[0]!.id, all[0]!.id, all[0]!.id]);
    expect(all.slice(0, 3).map((r) => r.answered)).toEqual([500, 'cut', 200]);
    const messages = delivered.map((r) => JSON.parse(r.body));
    expect(messages.map((m) => m.data.id)).toEqual(sent.map((r) => r.id));
    for (const [i, r] of delivered.entries()) {
      expect(new Webhook(secret).verify(r.body, r.headers)).toEqual(messages[i]);
      expect(r.headers['webhook-id']).toBe(messages[i].id);
      expect(r.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['user-agent']).toMatch(/^qbft-devportal-webhooks\//);
    }
    const { developerId: _d, ...view } = sent[0]!;
    expect(messages[0]).toEqual({
      id: expect.any(String),
      type: 'transaction.status',
      createdAt: expect.any(String),
      data: view,
    });
    // A message signed with another secret is refused by the receiver's check.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(delivered[0]!.body, delivered[0]!.headers),
    ).toThrow();

    // The delivery log, newest first.
    const log = await waitFor('the log settled', async () => {
      const res = await deliveries(hook.body.id);
      return res.body.items.every((d: any) => d.status === 'delivered') ? res : undefined;
    });
    expect(log.status).toBe(200);
    expect(log.body.nextCursor).toBeNull();
    expect(log.body.items.map((d: any) => d.id)).toEqual(messages.map((m) => m.id).reverse());
    expect(log.body.items[4]).toEqual({
      id: messages[0].id,
      type: 'transaction.status',
      status: 'delivered',
      attempts: 3,
      lastResponseStatus: 200,
      nextAttemptAt: null,
      createdAt: messages[0].createdAt,
    });
    expect(log.body.items.slice(0, 4).map((d: any) => [d.attempts, d.lastResponseStatus])).toEqual(
      Array(4).fill([1, 200]),
    );
    const [failure] = await rows('SELECT last_error FROM webhook_deliveries WHERE id = $1', [messages[0].id]);
    expect(failure.last_error).toBeNull();

    // The secret is in no log line, no stored message and no answer.
    expect(logLines.join('\n')).not.toContain(secret.slice(6));
    const stored = await rows('SELECT body FROM webhook_deliveries WHERE webhook_id = $1', [hook.body.id]);
    expect(JSON.stringify(stored)).not.toContain(secret.slice(6));
    expect(JSON.stringify(log.body)).not.toContain(secret.slice(6));
  }, 60_000);

  it('shows a failing delivery as pending with its attempts and holds the later ones', async () => {
    const hook = await create({ url: `${receiver.url}/down`, events: ['transaction.status'] });
    receiver.answer = async (req) => (req.path === '/down' ? 503 : 200);
    const sent = [record(dev), record(dev), record(dev)];
    await statusChanged(...sent);
    worker();
    // Three attempts recorded (each outcome is written just after the receiver answers).
    const log = await waitFor('three attempts', async () => {
      const res = await deliveries(hook.body.id);
      return res.body.items[2]?.attempts >= 3 ? res : undefined;
    });
    const [third, second, first] = log.body.items;
    expect(first).toMatchObject({ status: 'pending', lastResponseStatus: 503 });
    expect(first.attempts).toBeGreaterThanOrEqual(3);
    expect(Date.parse(first.nextAttemptAt)).toBeGreaterThan(Date.now() - 1000);
    for (const later of [second, third])
      expect(later).toMatchObject({ status: 'pending', attempts: 0, lastResponseStatus: null });
    expect(new Set(receiver.on('/down').map((r) => r.id))).toEqual(new Set([first.id]));
  });

  it('gives a delivery up after the retry window and lets the next one through', async () => {
    const hook = await create({ url: `${receiver.url}/gone`, events: ['transaction.status'] });
    // Only the first message is refused (410 Gone), on every attempt.
    let doomed: string | undefined;
    receiver.answer = async (req) => {
      if (req.path !== '/gone') return 200;
      doomed ??= req.id;
      return req.id === doomed ? 410 : 200;
    };
    const sent = [record(dev), record(dev)];
    await statusChanged(...sent);
    // The window shrunk to 300 ms stands for the 24 hours of the default.
    worker(undefined, { giveUpAfterMs: 300 });
    const log = await waitFor('first failed, second delivered', async () => {
      const res = await deliveries(hook.body.id);
      return res.body.items[0]?.status === 'delivered' ? res : undefined;
    });
    expect(log.body.items[1]).toMatchObject({ status: 'failed', lastResponseStatus: 410, nextAttemptAt: null });
    expect(log.body.items[1].attempts).toBeGreaterThanOrEqual(2);
    const [row] = await rows('SELECT last_error FROM webhook_deliveries WHERE id = $1', [log.body.items[1].id]);
    expect(row.last_error).toBe(`status 410: ${'x'.repeat(200)}`);
    // The second message went out only once the first was given up.
    const gone = receiver.on('/gone');
    const firstOther = gone.findIndex((r) => r.id !== doomed);
    expect(gone.slice(firstOther).every((r) => r.id !== doomed)).toBe(true);
  });

  it('tells a queued transaction cancelled: transaction.status with the record as GET answers it', async () => {
    const hook = await create({
      url: `${receiver.url}/cancelled`,
      events: ['transaction.status'],
      contractId: signals.id,
    });
    const { apiKey } = await newKey(api, dev);
    // Hold the wallet's lane (its advisory lock): the accepted invoke stays queued until cancelled.
    const pg = new PgClient({ connectionString: stack.databaseUrl });
    await pg.connect();
    const lane = `nonce:testnet:${dev.walletAddress}`;
    await pg.query('SELECT pg_advisory_lock(hashtext($1))', [lane]);
    let transactionId: string;
    try {
      const accepted = await api.post(
        `/api/devportal/contracts/${signals.id}/invoke/fire`,
        { args: ['7'] },
        { apiKey, headers: { prefer: 'respond-async' } },
      );
      expect(accepted.status).toBe(202);
      transactionId = accepted.body.transactionId;
      const cancel = await api.post(`/api/devportal/transactions/${transactionId}/cancel`, {}, { apiKey });
      expect(cancel.status).toBe(201);
    } finally {
      await pg.query('SELECT pg_advisory_unlock(hashtext($1))', [lane]);
      await pg.end();
    }
    worker();
    const delivered = await waitFor('queued and cancelled delivered', () => {
      const ok = receiver.on('/cancelled').filter((r) => r.answered === 200);
      return ok.length >= 2 ? ok : undefined;
    });
    const messages = delivered.map((r) => new Webhook(hook.body.secret).verify(r.body, r.headers) as any);
    expect(messages.map((m) => [m.type, m.data.id, m.data.status])).toEqual([
      ['transaction.status', transactionId, 'queued'],
      ['transaction.status', transactionId, 'cancelled'],
    ]);
    const record = (await api.get(`/api/devportal/transactions/${transactionId}`, { token: dev.token })).body;
    expect(record).toMatchObject({ status: 'cancelled', txHash: null, nonce: null });
    // The message is exactly {id, type, createdAt, data}, `data` the record as GET /transactions/{id} answers it.
    expect(messages[1]).toEqual({
      id: delivered[1]!.headers['webhook-id'],
      type: 'transaction.status',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: record,
    });
    expect(messages[1].data.history.map((h: any) => h.status)).toEqual(['queued', 'cancelled']);
    // The send that comes after the cancel finds it ended: no pending, nothing more to tell.
    await sleep(1000);
    const [count] = await rows(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = $1`, [
      hook.body.id,
    ]);
    expect(count.n).toBe(2);
  }, 60_000);

  it('sends a webhook only its own developer’s, and its contract’s, transactions', async () => {
    const all = await create({ url: `${receiver.url}/all`, events: ['transaction.status'] });
    const one = await create({ url: `${receiver.url}/one`, events: ['transaction.status'], contractId: signals.id });
    const events = await create({
      url: `${receiver.url}/events-only`,
      events: ['contract.event'],
      contractId: signals.id,
    });
    const onContract = record(dev, { contractId: signals.id });
    await statusChanged(record(dev), onContract, record(other));
    const counts = await rows(
      `SELECT webhook_id, count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ANY($1) GROUP BY webhook_id`,
      [[all.body.id, one.body.id, events.body.id]],
    );
    expect(Object.fromEntries(counts.map((c) => [c.webhook_id, c.n]))).toEqual({ [all.body.id]: 2, [one.body.id]: 1 });
  });

  it('rolls the message back with the caller’s transaction', async () => {
    const hook = await create({ url: `${receiver.url}/rb`, events: ['transaction.status'] });
    await expect(
      stack.app.dataSource.transaction(async (m) => {
        await stack.app.services.webhooks.transactionStatusChanged(m, record(dev));
        throw new Error('the status change failed');
      }),
    ).rejects.toThrow('the status change failed');
    expect((await deliveries(hook.body.id)).body.items).toEqual([]);
  });

  it('stops a deleted webhook’s pending deliveries', async () => {
    const hook = await create({ url: `${receiver.url}/stopped`, events: ['transaction.status'] });
    receiver.answer = async (req) => (req.path === '/stopped' ? 500 : 200);
    await statusChanged(record(dev), record(dev));
    worker();
    await waitFor('a failed attempt', () => (receiver.on('/stopped').length >= 1 ? true : undefined));
    await api.del(`/api/devportal/webhooks/${hook.body.id}`, { token: dev.token });
    const seen = receiver.on('/stopped').length;
    await sleep(1500);
    expect(receiver.on('/stopped').length).toBeLessThanOrEqual(seen + 1);
    const log = await deliveries(hook.body.id);
    expect(log.body.items.map((d: any) => d.status)).toEqual(['cancelled', 'cancelled']);
    await statusChanged(record(dev));
    expect((await deliveries(hook.body.id)).body.items).toHaveLength(2);
  });

  it('pages the delivery log with the cursor codec and refuses tampered or foreign cursors', async () => {
    const hook = await create({ url: `${receiver.url}/pages`, events: ['transaction.status'] });
    const second = await create({ url: `${receiver.url}/pages2`, events: ['transaction.status'] });
    // Positions cross 99 → 100 on this page: ordered as numbers, not as their text.
    const [{ seq }] = await rows(`SELECT last_value::int AS seq FROM webhook_deliveries_seq_seq`);
    await rows(`SELECT setval('webhook_deliveries_seq_seq', $1)`, [Math.max(seq, 97)]);
    await statusChanged(...Array.from({ length: 7 }, () => record(dev)));
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await deliveries(hook.body.id, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      ids.push(...page.body.items.map((d: any) => d.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    const stored = await rows<{ id: string }>(
      'SELECT id FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY seq DESC',
      [hook.body.id],
    );
    expect(ids).toEqual(stored.map((r) => r.id));
    const first = await deliveries(hook.body.id, '?limit=3');
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=abc',
      '?cursor=garbage',
      `?cursor=${first.body.nextCursor.slice(0, -2)}`,
      `?cursor=${Buffer.from(JSON.stringify({ webhook: hook.body.id, seq: '1; DROP' })).toString('base64url')}`,
    ]) {
      const res = await deliveries(hook.body.id, query);
      expect([query, res.status, res.body.error.code]).toEqual([query, 400, 'VALIDATION_FAILED']);
    }
    const foreign = await deliveries(second.body.id, `?cursor=${first.body.nextCursor}`);
    expect([foreign.status, foreign.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect((await deliveries(hook.body.id)).body.items).toHaveLength(7);
  });
});

describe('several instances', () => {
  afterEach(() => clearWebhooks(dev));

  it('never sends one message from two instances at once and keeps each webhook in order', async () => {
    const hooks = await Promise.all(
      [1, 2, 3].map((i) => create({ url: `${receiver.url}/multi/${i}`, events: ['transaction.status'] })),
    );
    receiver.answer = async () => {
      await sleep(Math.floor(Math.random() * 30));
      return 200;
    };
    receiver.maxConcurrentPerMessage = 0;
    const sent: TransactionRecordView[] = [];
    for (let i = 0; i < 20; i++) sent.push(record(dev, { nonce: i }));
    await statusChanged(...sent);
    // Three instances, each with its own claims, contending on one outbox.
    worker(undefined, { concurrency: 2 });
    worker(undefined, { concurrency: 2 });
    worker(undefined, { concurrency: 2 });
    for (const [i, hook] of hooks.entries()) {
      const got = await waitFor(`webhook ${i + 1} complete`, () => {
        const r = receiver.on(`/multi/${i + 1}`);
        return r.length >= 20 ? r : undefined;
      });
      expect(got.map((r) => JSON.parse(r.body).data.nonce)).toEqual(sent.map((s) => s.nonce));
      // Exactly once here: nothing crashed, so nothing was sent twice.
      expect(new Set(got.map((r) => r.id)).size).toBe(20);
      // The outcome is written just after the receiver answers.
      const settled = await waitFor('every outcome recorded', async () => {
        const [{ pending, delivered }] = await rows(
          `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
                  count(*) FILTER (WHERE status = 'delivered' AND attempts = 1)::int AS delivered
             FROM webhook_deliveries WHERE webhook_id = $1`,
          [hook.body.id],
        );
        return pending === 0 ? delivered : undefined;
      });
      expect(settled).toBe(20);
    }
    expect(receiver.maxConcurrentPerMessage).toBe(1);
  }, 60_000);

  it('shares the outbox with a separate service process: each message sent by one instance, once', async () => {
    const hooks = await Promise.all(
      [1, 2].map((i) => create({ url: `${receiver.url}/shared/${i}`, events: ['transaction.status'] })),
    );
    receiver.answer = async () => {
      await sleep(80 + Math.floor(Math.random() * 40));
      return 200;
    };
    receiver.maxConcurrentPerMessage = 0;
    const sibling = await spawnSibling(stack, { LOG_LEVEL: 'debug' });
    try {
      const mine: string[] = [];
      const logger = createLogger('debug', { write: (line: string) => void mine.push(line) });
      // An instance keeps a webhook's chain while it lasts, so whichever polls first could take both
      // chains. This one sends one delivery at a time and the receiver answers slowly: while it works
      // through one webhook's batch, the process (polling every 500 ms) takes the other's, however
      // loaded the machine is.
      const local = new WebhookDeliveryWorker(stack.app.dataSource, stack.app.services.webhooks, undefined, logger, {
        pollMs: 50,
        concurrency: 1,
      });
      workers.push(local);
      local.start();
      const sent: TransactionRecordView[] = [];
      for (let i = 0; i < 30; i++) {
        sent.push(record(dev, { nonce: i }));
        await statusChanged(sent[i]!);
        if (i % 5 === 4) {
          local.wake();
          await sleep(300);
        }
      }
      for (const i of [1, 2]) {
        const got = await waitFor(`webhook ${i} complete`, () => {
          const r = receiver.on(`/shared/${i}`);
          return r.length >= 30 ? r : undefined;
        });
        expect(got.map((r) => JSON.parse(r.body).data.nonce)).toEqual(sent.map((s) => s.nonce));
        expect(new Set(got.map((r) => r.id)).size).toBe(30);
      }
      const deliveredBy = (lines: string[]) =>
        new Set(
          lines
            .filter((l) => l.includes('"webhook delivered"'))
            .map((l) => (JSON.parse(l) as { deliveryId: string }).deliveryId),
        );
      // Outcomes are recorded (and logged) just after the receiver answers.
      const n = await waitFor('every outcome recorded', async () => {
        const [{ pending, delivered }] = await rows(
          `SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
                  count(*) FILTER (WHERE status = 'delivered' AND attempts = 1)::int AS delivered
             FROM webhook_deliveries WHERE webhook_id = ANY($1)`,
          [hooks.map((h) => h.body.id)],
        );
        return pending === 0 ? delivered : undefined;
      });
      expect(n).toBe(60);
      const [byProcess, byThis] = await waitFor('every delivery logged', () => {
        const sets = [deliveredBy(sibling.output().split('\n')), deliveredBy(mine)] as const;
        return sets[0].size + sets[1].size >= 60 ? sets : undefined;
      });
      // Both instances did part of the work, and no message was sent by both.
      expect(byProcess.size).toBeGreaterThan(0);
      expect(byThis.size).toBeGreaterThan(0);
      expect(byProcess.size + byThis.size).toBe(60);
      expect([...byProcess].filter((id) => byThis.has(id))).toEqual([]);
      expect(receiver.maxConcurrentPerMessage).toBe(1);
    } finally {
      await sibling.stop();
    }
  }, 90_000);

  it('fans contract events out once, in order, from a cursor that starts at creation', async () => {
    // Test double of the events module: items this test controls, served after a position like the real source.
    const items: ContractEventItem[] = [];
    const calls: Array<{ contractId: string; event: string | null; after: unknown }> = [];
    const source: ContractEventSource = {
      async eventsAfter(contractId, event, after, limit) {
        calls.push({ contractId, event, after });
        return items
          .filter(
            (e) =>
              !after ||
              e.blockNumber > after.blockNumber ||
              (e.blockNumber === after.blockNumber && e.logIndex > after.logIndex),
          )
          .slice(0, limit);
      },
    };
    const hook = await create({
      url: `${receiver.url}/events`,
      events: ['contract.event'],
      contractId: signals.id,
      event: 'Pong',
    });
    const [cursor] = await rows('SELECT event_cursor_block::int AS block FROM webhooks WHERE id = $1', [hook.body.id]);
    expect(cursor.block).toBeGreaterThan(0);
    const event = (blockNumber: number, logIndex: number): ContractEventItem => ({
      event: 'Pong',
      signature: 'Pong(uint256,address)',
      args: { n: String(blockNumber * 10 + logIndex), by: signals.address },
      address: signals.address,
      blockNumber,
      blockHash: `0x${blockNumber.toString(16).padStart(64, '0')}`,
      transactionHash: `0x${(blockNumber * 100 + logIndex).toString(16).padStart(64, '0')}`,
      logIndex,
      timestamp: 1_700_000_000 + blockNumber,
    });
    const head = cursor.block as number;
    items.push(event(head - 1, 0), event(head, 3)); // before creation: never sent
    items.push(event(head + 1, 0), event(head + 1, 1), event(head + 2, 0));
    receiver.answer = async () => 200;
    // Two instances fan out and deliver together.
    worker(source);
    worker(source);
    await waitFor('three events', () => (receiver.on('/events').length >= 3 ? true : undefined));
    items.push(event(head + 3, 0), event(head + 3, 5));
    const got = await waitFor('five events', () => {
      const r = receiver.on('/events');
      return r.length >= 5 ? r : undefined;
    });
    await sleep(500);
    const bodies = receiver.on('/events').map((r) => JSON.parse(r.body));
    expect(bodies).toHaveLength(5);
    expect(bodies.map((b) => [b.data.blockNumber, b.data.logIndex])).toEqual([
      [head + 1, 0],
      [head + 1, 1],
      [head + 2, 0],
      [head + 3, 0],
      [head + 3, 5],
    ]);
    expect(bodies[0]).toEqual({
      id: got[0]!.id,
      type: 'contract.event',
      createdAt: expect.any(String),
      data: items[2],
    });
    expect(calls.every((c) => c.contractId === signals.id && c.event === 'Pong(uint256,address)')).toBe(true);
    const [after] = await rows(
      'SELECT event_cursor_block::int AS block, event_cursor_log AS log FROM webhooks WHERE id = $1',
      [hook.body.id],
    );
    expect(after).toEqual({ block: head + 3, log: 5 });
  });
});

describe('production mode (SSRF)', () => {
  it('refuses private targets at creation and again at delivery, against the address connected to', async () => {
    // A production instance on the same database (its own wallet key and faucet: dev-chain ones are refused there).
    const prod = await spawnSibling(stack, {
      NODE_ENV: 'production',
      WALLET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      FAUCET_PRIVATE_KEY: randomBytes(32).toString('hex'),
    });
    try {
      const prodApi = client(prod.url);
      const make = (url: string) =>
        prodApi.post(
          `/api/devportal/developers/${dev.developerId}/webhooks`,
          { url, events: ['transaction.status'] },
          { token: dev.token },
        );
      for (const [url, reason] of [
        [`${receiver.url}/prod`, /127\.0\.0\.1 is a loopback address/],
        ['http://localhost:8080/h', /loopback/],
        ['http://10.0.0.8/h', /private/],
        ['http://169.254.169.254/latest/meta-data/', /linkLocal/],
        ['http://[::1]/h', /loopback/],
        ['http://[fe80::1]/h', /linkLocal/],
        ['http://[fc00::1]/h', /uniqueLocal/],
        ['http://[::ffff:127.0.0.1]/h', /loopback/],
        // IPv4-compatible: WHATWG writes it [::7f00:1], which ipaddr.js calls unicast.
        ['http://[::127.0.0.1]/h', /::7f00:1 is outside global unicast \(2000::\/3\)/],
        ['http://0.0.0.0/h', /unspecified/],
        ['http://100.64.0.1/h', /carrierGradeNat/],
        ['https://no-such-host.invalid/h', /does not resolve/],
      ] as const) {
        const res = await make(url);
        expect([url, res.status, res.body.error.code]).toEqual([url, 400, 'VALIDATION_FAILED']);
        expect(res.body.error.message).toMatch(reason);
        expect(res.body.error.details).toMatchObject({ field: 'url' });
      }
      // A public address is accepted (nothing is sent to it: it is pointed at this machine below).
      const accepted = await make('http://93.184.216.34/hook');
      expect(accepted.status).toBe(201);
      expect(accepted.headers.get('cache-control')).toBe('no-store');

      // The target turns private after creation (as a DNS answer may): the delivery is refused at connect.
      await rows('UPDATE webhooks SET url = $2 WHERE id = $1', [accepted.body.id, `${receiver.url}/prod-later`]);
      await statusChanged(record(dev));
      const log = await waitFor('a refused attempt', async () => {
        const res = await deliveries(accepted.body.id);
        return res.body.items[0]?.attempts >= 1 ? res : undefined;
      });
      expect(log.body.items[0]).toMatchObject({ status: 'pending', lastResponseStatus: null });
      const [row] = await rows('SELECT last_error FROM webhook_deliveries WHERE webhook_id = $1', [accepted.body.id]);
      expect(row.last_error).toMatch(/127\.0\.0\.1 is a loopback address/);
      expect(receiver.on('/prod-later')).toEqual([]);
      expect(prod.output()).not.toContain(accepted.body.secret.slice(6));
    } finally {
      await prod.stop();
      await clearWebhooks(dev);
    }
  }, 90_000);
});

describe('crash of a sending instance', () => {
  let sibling: ServiceProcess | undefined;
  afterEach(async () => {
    await sibling?.stop('SIGKILL');
    sibling = undefined;
    await clearWebhooks(dev);
  });

  it('loses nothing when killed mid-delivery: a restarted instance finishes, in order', async () => {
    const hook = await create({ url: `${receiver.url}/crash`, events: ['transaction.status'] });
    let hold = true;
    receiver.answer = async (req) => {
      // Until the instance is killed, the first message never gets an answer.
      while (hold && req.path === '/crash') await sleep(50);
      return 200;
    };
    const sent = [record(dev), record(dev), record(dev)];
    await statusChanged(...sent);
    sibling = await spawnSibling(stack);
    await waitFor('the first message in flight', () => (receiver.on('/crash').length >= 1 ? true : undefined));
    await sibling.stop('SIGKILL');
    hold = false;
    const [claimed] = await rows(
      `SELECT status, attempts, lease_until > now() AS leased FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY seq LIMIT 1`,
      [hook.body.id],
    );
    expect(claimed).toEqual({ status: 'pending', attempts: 0, leased: true });
    // The dead instance's claim holds until its lease expires (20 s); let that time pass.
    await rows(`UPDATE webhook_deliveries SET lease_until = now() - interval '1 second' WHERE webhook_id = $1`, [
      hook.body.id,
    ]);

    // A new instance takes over once the dead one's lease has expired.
    sibling = await spawnSibling(stack);
    const got = await waitFor(
      'three messages delivered after the restart',
      () => {
        const ok = receiver.on('/crash').filter((r) => r.answered === 200);
        return ok.length >= 3 ? ok : undefined;
      },
      45_000,
    );
    expect(got.map((r) => JSON.parse(r.body).data.id)).toEqual(sent.map((s) => s.id));
    // At least once: the first message came twice (the cut attempt, then the delivered one), nothing else.
    const ids = receiver.on('/crash').map((r) => r.id);
    expect(ids.filter((id) => id === got[0]!.id)).toHaveLength(2);
    expect(ids).toHaveLength(4);
    const log = await waitFor('the outcomes recorded', async () => {
      const res = await deliveries(hook.body.id);
      return res.body.items.every((d: any) => d.status !== 'pending') ? res : undefined;
    });
    expect(log.body.items.map((d: any) => [d.status, d.attempts])).toEqual([
      ['delivered', 1],
      ['delivered', 1],
      ['delivered', 1],
    ]);
  }, 90_000);

  it('gives its claims back when stopped gracefully, so another instance sends at once', async () => {
    const hook = await create({ url: `${receiver.url}/graceful`, events: ['transaction.status'] });
    let hold = true;
    receiver.answer = async (req) => {
      while (hold && req.path === '/graceful') await sleep(50);
      return 200;
    };
    await statusChanged(record(dev), record(dev));
    sibling = await spawnSibling(stack);
    await waitFor('the first message in flight', () => (receiver.on('/graceful').length >= 1 ? true : undefined));
    expect(await sibling.stop('SIGTERM')).toBe(0);
    sibling = undefined;
    hold = false;
    const [released] = await rows(
      `SELECT status, attempts, lease_until FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY seq LIMIT 1`,
      [hook.body.id],
    );
    expect(released).toEqual({ status: 'pending', attempts: 0, lease_until: null });
    const started = Date.now();
    worker();
    await waitFor('both delivered', async () => {
      const log = await deliveries(hook.body.id);
      return log.body.items.every((d: any) => d.status === 'delivered') ? true : undefined;
    });
    expect(Date.now() - started).toBeLessThan(5000);
  }, 60_000);
});
