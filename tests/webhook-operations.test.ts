/* eslint-disable @typescript-eslint/no-explicit-any -- API responses are asserted field by field */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createLogger } from '../src/kernel/logger';
import type { TransactionRecordView } from '../src/modules/transactions';
import { WebhookDeliveryWorker, type DeliveryWorkerOptions } from '../src/modules/webhooks';
import { client, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { startStack, sqlRows, type Stack } from './kit/stack';
import { refusingUrl, waitFor, WebhookReceiver, type ReceivedRequest } from './kit/webhook-receiver';

/** Why a delivery failed (lastError), and test, redeliver and rotate-secret (docs/api.md, Webhooks). */

let stack: Stack;
let api: Client;
let dev: LoggedIn;
let other: LoggedIn;
let receiver: WebhookReceiver;
const logLines: string[] = [];
const workers: WebhookDeliveryWorker[] = [];
const silent = createLogger('silent');
const rows = <T = any>(text: string, params: unknown[] = []) => sqlRows<T>(stack, text, params);

/** Short retry timings so that retries happen within a test; the logic is the production worker's. */
const FAST: Partial<DeliveryWorkerOptions> = { pollMs: 50, retryBaseMs: 100, retryMinMs: 50, retryCapMs: 400 };

function worker(options: Partial<DeliveryWorkerOptions> = {}) {
  const w = new WebhookDeliveryWorker(stack.app.dataSource, stack.app.services.webhooks, undefined, silent, {
    ...FAST,
    ...options,
  });
  workers.push(w);
  w.start();
  return w;
}

beforeAll(async () => {
  stack = await startStack({ LOG_LEVEL: 'debug' }, undefined, logLines);
  api = client(stack.url);
  // The tests drive their own workers; the app's own is stopped.
  await stack.app.services.webhookWorker.stop();
  dev = await login(api, stack.ca);
  other = await login(api, stack.ca);
  receiver = new WebhookReceiver();
  await receiver.start();
}, 120_000);

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  const list = await api.get(`/api/devportal/developers/${dev.developerId}/webhooks`, { token: dev.token });
  for (const w of list.body.items) await api.del(`/api/devportal/webhooks/${w.id}`, { token: dev.token });
});

afterAll(async () => {
  await receiver?.stop();
  await stack?.stop();
});

async function create(url: string, who: LoggedIn = dev): Promise<{ id: string; secret: string }> {
  const res = await api.post(
    `/api/devportal/developers/${who.developerId}/webhooks`,
    { url, events: ['transaction.status'] },
    { token: who.token },
  );
  expect(res.status).toBe(201);
  return res.body;
}

let nonce = 0;
async function statusChanged(who: LoggedIn = dev): Promise<void> {
  nonce += 1;
  const at = new Date().toISOString();
  const record: TransactionRecordView = {
    id: randomUUID(),
    kind: 'invoke',
    network: 'testnet',
    contractId: null,
    method: 'fire',
    status: 'pending',
    txHash: `0x${nonce.toString(16).padStart(64, '0')}`,
    nonce,
    blockNumber: null,
    gasUsed: null,
    revertReason: null,
    error: null,
    createdAt: at,
    updatedAt: at,
    history: [{ status: 'queued', at }],
    developerId: who.developerId,
  };
  await stack.app.dataSource.transaction((m) => stack.app.services.webhooks.transactionStatusChanged(m, record));
}

const deliveries = (webhookId: string, who: LoggedIn = dev) =>
  api.get(`/api/devportal/webhooks/${webhookId}/deliveries`, { token: who.token });
const listed = async (webhookId: string) =>
  (await api.get(`/api/devportal/developers/${dev.developerId}/webhooks`, { token: dev.token })).body.items.find(
    (w: any) => w.id === webhookId,
  );

/** The first delivery of a webhook once it has been attempted at least once. */
const firstAttempted = (webhookId: string, ms?: number) =>
  waitFor(
    'an attempt recorded',
    async () => {
      const res = await deliveries(webhookId);
      const d = res.body.items[res.body.items.length - 1];
      return d?.attempts >= 1 ? d : undefined;
    },
    ms,
  );

describe('lastError', () => {
  it('says "connection refused" for a receiver that is down, on the delivery and on the webhook', async () => {
    const hook = await create(`${await refusingUrl()}/down`);
    await statusChanged();
    worker();
    const d = await firstAttempted(hook.id);
    expect(d).toMatchObject({ status: 'pending', lastResponseStatus: null, lastError: 'connection refused' });
    const w = await listed(hook.id);
    expect(w.lastError).toBe('connection refused');
    // No answer came: the status is left out over REST (null over GraphQL, below).
    expect(w).not.toHaveProperty('lastResponseStatus');
    expect(Date.parse(w.lastAttemptAt)).toBeGreaterThan(Date.now() - 60_000);
    // The same over GraphQL, where the null status is kept.
    const gql = await api.graphql(
      `query($id: ID!, $w: ID!) {
        webhooks(id: $id) { items { id lastResponseStatus lastError lastAttemptAt } }
        webhookDeliveries(webhookId: $w) { items { lastResponseStatus lastError } }
      }`,
      { id: dev.developerId, w: hook.id },
      { token: dev.token },
    );
    expect(gql.body.data.webhooks.items[0]).toMatchObject({
      lastResponseStatus: null,
      lastError: 'connection refused',
    });
    expect(gql.body.data.webhookDeliveries.items[0]).toEqual({
      lastResponseStatus: null,
      lastError: 'connection refused',
    });
  });

  it('says "timeout after 10 s" for a receiver that never answers', async () => {
    const hook = await create(`${receiver.url}/hang`);
    receiver.answer = (req) => (req.path === '/hang' ? 'hang' : { status: 200 });
    await statusChanged();
    worker();
    const d = await firstAttempted(hook.id, 30_000);
    expect(d).toMatchObject({ status: 'pending', lastResponseStatus: null, lastError: 'timeout after 10 s' });
    expect(await listed(hook.id)).toMatchObject({ lastError: 'timeout after 10 s' });
  }, 45_000);

  it('quotes a 500 answer’s first 200 characters, control characters removed, and clears it on success', async () => {
    const hook = await create(`${receiver.url}/broken`);
    const body = `upstream\u0000 failed\r\nX-Injected: yes\u001b[31m red\u202e${'é'.repeat(300)}`;
    let fail = true;
    receiver.answer = () => (fail ? { status: 500, body } : { status: 204 });
    await statusChanged();
    worker();
    const d = await firstAttempted(hook.id);
    expect(d.lastResponseStatus).toBe(500);
    const quoted = `upstream failed X-Injected: yes [31m red ${'é'.repeat(300)}`.slice(0, 200);
    expect(d.lastError).toBe(`status 500: ${quoted}`);
    expect([...d.lastError.slice('status 500: '.length)]).toHaveLength(200);
    expect(d.lastError).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    expect(await listed(hook.id)).toMatchObject({ lastResponseStatus: 500, lastError: d.lastError });

    fail = false;
    const done = await waitFor('delivered', async () => {
      const res = await deliveries(hook.id);
      return res.body.items[0]?.status === 'delivered' ? res.body.items[0] : undefined;
    });
    // Delivered: no lastError (left out over REST), on the delivery and on the webhook.
    expect(done).not.toHaveProperty('lastError');
    expect(done.lastResponseStatus).toBe(204);
    const w = await waitFor('the webhook’s state', async () => {
      const found = await listed(hook.id);
      return found?.lastResponseStatus === 204 ? found : undefined;
    });
    expect(w).not.toHaveProperty('lastError');
  });
});

/** Verifies a received message with `secret` the way a receiver would (standardwebhooks). */
const verifies = (secret: string, r: ReceivedRequest) => {
  try {
    new Webhook(secret).verify(r.body, r.headers);
    return true;
  } catch {
    return false;
  }
};

describe('test, redeliver, rotate-secret', () => {
  it('sends a signed webhook.test message on request (201 with the delivery)', async () => {
    const hook = await create(`${receiver.url}/test`);
    receiver.answer = () => ({ status: 200 });
    const res = await api.post(`/api/devportal/webhooks/${hook.id}/test`, {}, { token: dev.token });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'webhook.test',
      status: 'pending',
      attempts: 0,
      lastResponseStatus: null,
      nextAttemptAt: expect.any(String),
      createdAt: expect.any(String),
    });
    worker();
    const [got] = await waitFor('the test message', () =>
      receiver.on('/test').length ? receiver.on('/test') : undefined,
    );
    expect(got!.id).toBe(res.body.id);
    expect(new Webhook(hook.secret).verify(got!.body, got!.headers)).toEqual({
      id: res.body.id,
      type: 'webhook.test',
      createdAt: res.body.createdAt,
      data: { webhookId: hook.id, message: expect.any(String) },
    });
    const log = await waitFor('delivered', async () => {
      const l = await deliveries(hook.id);
      return l.body.items[0]?.status === 'delivered' ? l.body.items : undefined;
    });
    expect(log).toEqual([
      { ...res.body, status: 'delivered', attempts: 1, lastResponseStatus: 200, nextAttemptAt: null },
    ]);
  });

  it('queues a delivered or failed delivery again with its id, and makes a waiting one due at once', async () => {
    const hook = await create(`${receiver.url}/again`);
    receiver.answer = () => ({ status: 200 });
    await statusChanged();
    await statusChanged();
    const w = worker();
    const delivered = await waitFor('both delivered', async () => {
      const { items } = (await deliveries(hook.id)).body;
      return items.length === 2 && items.every((d: any) => d.status === 'delivered') ? items : undefined;
    });
    const [second, first] = delivered;
    await w.stop();

    // Delivered → pending again, same message, at the end of the queue (the top of the list), signed anew.
    const again = await api.post(
      `/api/devportal/webhooks/${hook.id}/deliveries/${first.id}/redeliver`,
      {},
      { token: dev.token },
    );
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ ...first, status: 'pending', nextAttemptAt: expect.any(String) });
    expect((await deliveries(hook.id)).body.items.map((d: any) => d.id)).toEqual([first.id, second.id]);
    worker();
    const sent = await waitFor('sent again', () =>
      receiver.on('/again').length >= 3 ? receiver.on('/again') : undefined,
    );
    expect(sent.map((r) => r.id)).toEqual([first.id, second.id, first.id]);
    expect(sent[2]!.body).toBe(sent[0]!.body);
    expect(verifies(hook.secret, sent[2]!)).toBe(true);
    const settled = await waitFor('delivered again', async () => {
      const [d] = (await deliveries(hook.id)).body.items;
      return d.status === 'delivered' ? d : undefined;
    });
    expect(settled).toMatchObject({ id: first.id, attempts: 2, status: 'delivered' });
    await Promise.all(workers.splice(0).map((x) => x.stop()));

    // Failed (given up) → pending again, with a new retry window.
    await rows(`UPDATE webhook_deliveries SET status = 'failed', finished_at = now() WHERE id = $1`, [first.id]);
    const revived = await api.post(
      `/api/devportal/webhooks/${hook.id}/deliveries/${first.id}/redeliver`,
      {},
      { token: dev.token },
    );
    expect([revived.status, revived.body.status]).toEqual([201, 'pending']);
    const [row] = await rows(`SELECT first_attempt_at, finished_at FROM webhook_deliveries WHERE id = $1`, [first.id]);
    expect(row).toEqual({ first_attempt_at: null, finished_at: null });

    // Pending and waiting for its next retry (an hour away) → due at once.
    await rows(`UPDATE webhook_deliveries SET next_attempt_at = now() + interval '1 hour' WHERE id = $1`, [first.id]);
    const now = await api.post(
      `/api/devportal/webhooks/${hook.id}/deliveries/${first.id}/redeliver`,
      {},
      { token: dev.token },
    );
    expect(now.status).toBe(201);
    expect(Date.parse(now.body.nextAttemptAt)).toBeLessThanOrEqual(Date.now() + 1000);
    worker();
    await waitFor('sent a third time', () =>
      receiver.on('/again').filter((r) => r.id === first.id).length >= 3 ? true : undefined,
    );
  });

  it('rotates the secret (201, shown once, no-store); both secrets verify for 24 h, then only the new one', async () => {
    const hook = await create(`${receiver.url}/rotate`);
    receiver.answer = () => ({ status: 200 });
    const rotated = await api.post(`/api/devportal/webhooks/${hook.id}/rotate-secret`, {}, { token: dev.token });
    expect(rotated.status).toBe(201);
    expect(rotated.headers.get('cache-control')).toBe('no-store');
    expect(rotated.body).toEqual({
      webhookId: hook.id,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      previousSecretExpiresAt: expect.any(String),
    });
    const newSecret: string = rotated.body.secret;
    expect(newSecret).not.toBe(hook.secret);
    const grace = Date.parse(rotated.body.previousSecretExpiresAt) - Date.now();
    expect(grace).toBeGreaterThan(24 * 3_600_000 - 60_000);
    expect(grace).toBeLessThanOrEqual(24 * 3_600_000);

    // During the grace period: two signatures, and a receiver holding either secret accepts the message.
    await statusChanged();
    worker();
    const [during] = await waitFor('a message', () =>
      receiver.on('/rotate').length ? receiver.on('/rotate') : undefined,
    );
    expect(during!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
    expect(verifies(newSecret, during!)).toBe(true);
    expect(verifies(hook.secret, during!)).toBe(true);
    expect(verifies(`whsec_${Buffer.alloc(32, 9).toString('base64')}`, during!)).toBe(false);

    // The grace period over: only the new secret signs.
    await rows(`UPDATE webhooks SET previous_secret_until = now() - interval '1 second' WHERE id = $1`, [hook.id]);
    await statusChanged();
    const after = await waitFor('a second message', () => receiver.on('/rotate')[1]);
    expect(after.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifies(newSecret, after)).toBe(true);
    expect(verifies(hook.secret, after)).toBe(false);

    // Rotating again: the secret just replaced keeps its grace, the older one stops at once.
    const third = await api.post(`/api/devportal/webhooks/${hook.id}/rotate-secret`, {}, { token: dev.token });
    await statusChanged();
    const last = await waitFor('a third message', () => receiver.on('/rotate')[2]);
    expect(verifies(third.body.secret, last)).toBe(true);
    expect(verifies(newSecret, last)).toBe(true);
    expect(verifies(hook.secret, last)).toBe(false);

    // No secret in the list, the log, the stored rows or the service's log lines.
    const stored = JSON.stringify(await rows(`SELECT * FROM webhooks WHERE id = $1`, [hook.id]));
    for (const secret of [hook.secret, newSecret, third.body.secret]) {
      expect(stored).not.toContain(secret.slice(6));
      expect(logLines.join('\n')).not.toContain(secret.slice(6));
      expect(JSON.stringify((await deliveries(hook.id)).body)).not.toContain(secret.slice(6));
    }
  });

  it('answers 403 for another developer’s webhook, 404 for an unknown one or delivery, 409 once deleted', async () => {
    const hook = await create(`${receiver.url}/owned`);
    await statusChanged();
    const [{ id: deliveryId }] = (await deliveries(hook.id)).body.items;
    const foreign = await create(`${receiver.url}/foreign`, other);
    await statusChanged(other);
    const [{ id: foreignDelivery }] = await rows(`SELECT id FROM webhook_deliveries WHERE webhook_id = $1`, [
      foreign.id,
    ]);
    const paths = (w: string, d: string) => [
      `/webhooks/${w}/test`,
      `/webhooks/${w}/rotate-secret`,
      `/webhooks/${w}/deliveries/${d}/redeliver`,
    ];
    const expectError = async (path: string, status: number, code: string, token = dev.token) => {
      const res = await api.post(`/api/devportal${path}`, {}, { token });
      expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({ path, status, code });
      return res;
    };
    for (const path of paths(hook.id, deliveryId)) {
      await expectError(path, 403, 'FORBIDDEN', other.token);
      expect((await api.post(`/api/devportal${path}`, {})).status).toBe(401);
    }
    for (const path of paths(foreign.id, foreignDelivery)) await expectError(path, 403, 'FORBIDDEN');
    for (const path of [...paths(randomUUID(), deliveryId), ...paths('not-a-uuid', deliveryId)]) {
      const res = await expectError(path, 404, 'NOT_FOUND');
      expect(res.body.error.message).toBe('No such webhook');
    }
    // A delivery that is not this webhook's (another's, unknown, malformed).
    for (const d of [foreignDelivery, randomUUID(), 'nope']) {
      const res = await expectError(`/webhooks/${hook.id}/deliveries/${d}/redeliver`, 404, 'NOT_FOUND');
      expect(res.body.error.message).toBe('No such delivery');
    }
    // Nothing changed for the refused calls: the secret still signs alone, no message was added.
    const [state] = await rows(
      `SELECT previous_secret_sealed IS NULL AS single, (SELECT count(*)::int FROM webhook_deliveries WHERE webhook_id = $1) AS n
         FROM webhooks WHERE id = $1`,
      [hook.id],
    );
    expect(state).toEqual({ single: true, n: 1 });

    expect((await api.del(`/api/devportal/webhooks/${hook.id}`, { token: dev.token })).status).toBe(200);
    for (const path of paths(hook.id, deliveryId)) await expectError(path, 409, 'INVALID_STATE');
    await api.del(`/api/devportal/webhooks/${foreign.id}`, { token: other.token });
  });

  it('serves the same as GraphQL mutations', async () => {
    const hook = await create(`${receiver.url}/gql`);
    const test = await api.graphql(
      `mutation($w: ID!) { testWebhook(webhookId: $w) { id type status lastError } }`,
      { w: hook.id },
      { token: dev.token },
    );
    expect(test.body.data.testWebhook).toMatchObject({ type: 'webhook.test', status: 'pending', lastError: null });
    const redo = await api.graphql(
      `mutation($w: ID!, $d: ID!) { redeliverWebhookDelivery(webhookId: $w, deliveryId: $d) { id status } }`,
      { w: hook.id, d: test.body.data.testWebhook.id },
      { token: dev.token },
    );
    expect(redo.body.data.redeliverWebhookDelivery).toEqual({ id: test.body.data.testWebhook.id, status: 'pending' });
    const rotated = await api.graphql(
      `mutation($w: ID!) { rotateWebhookSecret(webhookId: $w) { webhookId secret previousSecretExpiresAt } }`,
      { w: hook.id },
      { token: dev.token },
    );
    expect(rotated.body.data.rotateWebhookSecret.secret).toMatch(/^whsec_/);
    const refused = await api.graphql(
      `mutation($w: ID!) { rotateWebhookSecret(webhookId: $w) { secret } }`,
      { w: hook.id },
      { token: other.token },
    );
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});
