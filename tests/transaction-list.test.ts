/* eslint-disable @typescript-eslint/no-explicit-any -- responses are asserted field by field */
import { Client as PgClient } from 'pg';
import { client, type Client } from './kit/http';
import { deployRegistered, gatewayUser, newKey, type DeployedContract } from './kit/flows';
import { login, type LoggedIn } from './kit/login';
import { COUNTER_SOURCE } from './kit/solidity';
import { startStack, type Stack } from './kit/stack';
import { providerOf } from './kit/chain';

// The transaction list (docs/api.md, "Transactions": list): a developer's records, newest first,
// filtered and paged, against a real PostgreSQL and anvil.

let stack: Stack;
let api: Client;
let dev: LoggedIn;
let counter: DeployedContract;
let other: DeployedContract;
const invokes: string[] = [];

const list = (query = '', token = dev.token) =>
  api.get(`/api/devportal/developers/${dev.developerId}/transactions${query}`, { token });

beforeAll(async () => {
  stack = await startStack();
  api = client(stack.url);
  const user = await gatewayUser(api, stack.ca, COUNTER_SOURCE);
  ({ dev, contract: counter } = user);
  other = await deployRegistered(api, dev, COUNTER_SOURCE);
  for (const c of [counter, counter, other]) {
    const res = await api.post(`/api/devportal/contracts/${c.id}/invoke/increment`, {}, { apiKey: user.apiKey });
    expect(res.status).toBe(201);
    invokes.push(res.body.transactionId as string);
  }
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

describe('GET /developers/{id}/transactions', () => {
  it('lists every record newest first: invokes, deploys and the drip', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    const items = res.body.items as any[];
    expect(items.map((i) => i.kind)).toEqual(['invoke', 'invoke', 'invoke', 'deploy', 'deploy', 'faucet']);
    expect(items.slice(0, 3).map((i) => i.id)).toEqual([...invokes].reverse());
    expect(items[0]).toMatchObject({ status: 'success', contractId: other.id, network: 'testnet' });
    // Every record, whatever its kind, carries its history: accepted, signed, mined.
    for (const item of items) {
      expect(item.history.map((h: any) => h.status)).toEqual(['queued', 'pending', 'success']);
      expect(item.history[2].txHash).toBe(item.txHash);
    }
    expect(res.body.nextCursor).toBeNull();
  });

  it('filters by kind, status, contract and network', async () => {
    expect(((await list('?kind=deploy')).body.items as any[]).map((i) => i.kind)).toEqual(['deploy', 'deploy']);
    const ofCounter = (await list(`?contractId=${counter.id}&kind=invoke`)).body.items as any[];
    expect(ofCounter.map((i) => i.id)).toEqual([invokes[1], invokes[0]]);
    expect((await list('?status=failed')).body.items).toEqual([]);
    expect((await list('?network=mainnet')).body.items).toEqual([]);
    expect(((await list('?status=success&network=testnet')).body.items as any[]).length).toBe(6);
  });

  it('is the same over GraphQL: developerTransactions with the same filters and pages', async () => {
    const gql = await api.graphql(
      `query($id: ID!, $c: ID) { developerTransactions(id: $id, kind: "invoke", contractId: $c, limit: 1) {
        items { id kind status history { status } } nextCursor } }`,
      { id: dev.developerId, c: counter.id },
      { token: dev.token },
    );
    const page = gql.body.data.developerTransactions;
    expect(page.items).toEqual([
      {
        id: invokes[1],
        kind: 'invoke',
        status: 'success',
        history: [{ status: 'queued' }, { status: 'pending' }, { status: 'success' }],
      },
    ]);
    expect(page.nextCursor).toEqual(expect.any(String));
    const bad = await api.graphql(
      'query($id: ID!) { developerTransactions(id: $id, status: "lost") { nextCursor } }',
      { id: dev.developerId },
      { token: dev.token },
    );
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });

  it('pages with limit and cursor, without repeats or gaps', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await list(`?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...(res.body.items as any[]).map((i) => i.id));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(((await list()).body.items as any[]).map((i) => i.id));
  });

  it('refuses bad filters (400 naming them) and other developers (403), without a token 401', async () => {
    for (const [query, field] of [
      ['?status=lost', 'status'],
      ['?kind=swap', 'kind'],
      ['?contractId=nope', 'contractId'],
      ['?limit=101', 'limit'],
      ['?cursor=abc', 'cursor'],
    ]) {
      const res = await list(query!);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(JSON.stringify(res.body.error)).toContain(field);
    }
    const stranger = await login(api, stack.ca);
    expect((await list('', stranger.token)).status).toBe(403);
    expect((await api.get(`/api/devportal/developers/${dev.developerId}/transactions`)).status).toBe(401);
  });
});

describe('POST /transactions/{id}/cancel', () => {
  it('a queued invoke → cancelled, nothing signed, no nonce used; the next invoke takes the nonce', async () => {
    const { apiKey } = await newKey(api, dev);
    const provider = providerOf(stack, 'testnet');
    // Hold the wallet's lane (its advisory lock): an accepted invoke stays queued meanwhile.
    const pg = new PgClient({ connectionString: stack.databaseUrl });
    await pg.connect();
    const lane = `nonce:testnet:${dev.walletAddress}`;
    await pg.query('SELECT pg_advisory_lock(hashtext($1))', [lane]);
    let accepted: any;
    const start = await provider.getTransactionCount(dev.walletAddress, 'pending');
    try {
      accepted = await api.post(
        `/api/devportal/contracts/${counter.id}/invoke/increment`,
        {},
        { apiKey, headers: { prefer: 'respond-async' } },
      );
      expect(accepted.status).toBe(202);
      const cancel = await api.post(
        `/api/devportal/transactions/${accepted.body.transactionId}/cancel`,
        {},
        { apiKey },
      );
      expect(cancel.status).toBe(201);
      expect(cancel.body).toMatchObject({
        id: accepted.body.transactionId,
        status: 'cancelled',
        txHash: null,
        nonce: null,
      });
    } finally {
      await pg.query('SELECT pg_advisory_unlock(hashtext($1))', [lane]);
      await pg.end();
    }
    await new Promise((r) => setTimeout(r, 1000));
    const record = await api.get(`/api/devportal/transactions/${accepted.body.transactionId}`, { token: dev.token });
    expect(record.body).toMatchObject({ status: 'cancelled', txHash: null, nonce: null });
    expect(await provider.getTransactionCount(dev.walletAddress, 'pending')).toBe(start);
    const cancelled = (await list('?status=cancelled')).body.items as any[];
    expect(cancelled.map((i) => i.id)).toEqual([accepted.body.transactionId]);
    const next = await api.post(`/api/devportal/contracts/${counter.id}/invoke/increment`, {}, { apiKey });
    expect(next.status).toBe(201);
    expect((await provider.getTransaction(next.body.txHash))!.nonce).toBe(start);
    provider.destroy();
  }, 60_000);

  it('a mined one → 409 INVALID_STATE naming its status (cancelTransaction alike); an unknown id 404', async () => {
    const mined = await api.post(`/api/devportal/transactions/${invokes[0]}/cancel`, {}, { token: dev.token });
    expect(mined.status).toBe(409);
    expect(mined.body.error).toMatchObject({ code: 'INVALID_STATE', details: { status: 'success' } });
    const gql = await api.graphql(
      'mutation($id: ID!) { cancelTransaction(id: $id) { status } }',
      { id: invokes[0] },
      { token: dev.token },
    );
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'INVALID_STATE', details: { status: 'success' } });
    const unknown = await api.post(
      '/api/devportal/transactions/00000000-0000-4000-8000-000000000000/cancel',
      {},
      { token: dev.token },
    );
    expect(unknown.status).toBe(404);
  });
});
