/* eslint-disable @typescript-eslint/no-explicit-any -- responses are asserted field by field */
import { gzipSync } from 'node:zlib';
import type { EntityManager } from 'typeorm';
import type { TransactionRecordView } from '../src/modules/transactions';
import { BESU_ERRORS } from './kit/besu-node';
import { ANVIL_KEYS, fund, providerOf } from './kit/chain';
import { Wallet } from 'ethers';
import { deployRegistered, invokesSentTogether, newKey } from './kit/flows';
import type { Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { ONCE_SOURCE } from './kit/solidity';
import { sqlRows, trackerPass, type Stack } from './kit/stack';
import { RESPOND_ASYNC as ASYNC, recordCalls, startRecordsUser } from './kit/transaction-records';

/** Transaction records (API contract §12): every invoke, deploy and drip, followed to its end. */
let stack: Stack;
let api: Client;
let dev: LoggedIn;
let other: LoggedIn;
let contract: { id: string; address: string };
let key: { id: string; apiKey: string };
let secondKey: string;
let otherKey: string;
let drip: any;

/** Every notification the sink was given, in order, with whether it ran inside a transaction. */
const notified: Array<{ id: string; status: string; txHash: string | null; inTransaction: boolean }> = [];
/** When set, the sink fails for records reaching this status (its change must roll back). */
let failOn: string | undefined;

const sql = <T = any>(text: string, params: unknown[] = []) => sqlRows<T>(stack, text, params);
const { invoke, getTx, settled, front } = recordCalls(() => ({ stack, api, contract, key }));
const statusesOf = (id: string) => notified.filter((n) => n.id === id).map((n) => n.status);

beforeAll(async () => {
  ({ stack, api, dev, contract, key, drip } = await startRecordsUser((started) =>
    started.app.services.sender.records.useSink({
      async transactionStatusChanged(manager: EntityManager, record: TransactionRecordView) {
        if (failOn === record.status) throw new Error('the sink is down');
        notified.push({
          id: record.id,
          status: record.status,
          txHash: record.txHash,
          inTransaction: manager.queryRunner?.isTransactionActive ?? false,
        });
      },
    }),
  ));
  other = await login(api, stack.ca);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: other.token })).status).toBe(201);
  secondKey = (await newKey(api, dev)).apiKey;
  otherKey = (await newKey(api, other)).apiKey;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

describe('transaction records', () => {
  it('records a faucet drip and a deployment, each notified once per status, in order, inside its transaction', async () => {
    expect(drip.transactionId).toMatch(/^[0-9a-f-]{36}$/);
    const dripped = await getTx(drip.transactionId, { token: dev.token });
    expect(dripped.status).toBe(200);
    expect(dripped.body).toMatchObject({
      id: drip.transactionId,
      kind: 'faucet',
      network: 'testnet',
      contractId: null,
      method: null,
      status: 'success',
      txHash: drip.txHash,
      blockNumber: drip.blockNumber,
      revertReason: null,
      error: null,
    });
    expect(statusesOf(drip.transactionId)).toEqual(['queued', 'pending', 'success']);

    const [deployed] = await sql<{ id: string }>(`SELECT id FROM transaction_records WHERE contract_id = $1`, [
      contract.id,
    ]);
    const record = await getTx(deployed!.id, { token: dev.token });
    const contractRow = (await api.get(`/api/devportal/contracts/${contract.id}`)).body;
    expect(record.body).toMatchObject({
      kind: 'deploy',
      contractId: contract.id,
      status: 'success',
      txHash: contractRow.deployTxHash,
      blockNumber: contractRow.blockNumber,
    });
    expect(statusesOf(deployed!.id)).toEqual(['queued', 'pending', 'success']);
    expect(notified.every((n) => n.inTransaction)).toBe(true);
  });

  it('answers a synchronous invoke with its transactionId, and the record holds its receipt', async () => {
    const res = await invoke('bump');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'success', transactionId: expect.any(String) });
    const record = await getTx(res.body.transactionId);
    expect(record.status).toBe(200);
    expect(record.body).toEqual({
      id: res.body.transactionId,
      kind: 'invoke',
      network: 'testnet',
      contractId: contract.id,
      method: 'bump()',
      status: 'success',
      txHash: res.body.txHash,
      nonce: expect.any(Number),
      blockNumber: res.body.blockNumber,
      gasUsed: res.body.gasUsed,
      revertReason: null,
      error: null,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
      history: [
        { status: 'queued', at: expect.stringMatching(/Z$/) },
        { status: 'pending', at: expect.stringMatching(/Z$/), txHash: res.body.txHash },
        { status: 'success', at: expect.stringMatching(/Z$/), txHash: res.body.txHash },
      ],
    });
    const tx = await providerOf(stack, 'testnet').getTransaction(res.body.txHash);
    expect(record.body.nonce).toBe(tx!.nonce);
    const notes = notified.filter((n) => n.id === res.body.transactionId);
    expect(notes.map((n) => n.status)).toEqual(['queued', 'pending', 'success']);
    expect(notes[1]!.txHash).toBe(res.body.txHash);

    const gql = await api.graphql(
      `query($id: ID!) { gatewayTransaction(id: $id) { id kind status txHash blockNumber gasUsed } }`,
      { id: res.body.transactionId },
      { token: dev.token },
    );
    expect(gql.body.data.gatewayTransaction).toEqual({
      id: res.body.transactionId,
      kind: 'invoke',
      status: 'success',
      txHash: res.body.txHash,
      blockNumber: res.body.blockNumber,
      gasUsed: res.body.gasUsed,
    });
  });

  it('answers Prefer: respond-async with 202 {transactionId, status} at once, and the record ends success', async () => {
    const res = await invoke('bump', {}, ASYNC);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ transactionId: expect.any(String), status: 'queued' });
    const record = await settled(res.body.transactionId);
    expect(record).toMatchObject({ status: 'success', txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(record.blockNumber).toBeGreaterThan(0);
    expect(Number(record.gasUsed)).toBeGreaterThan(21_000);
    const receipt = await providerOf(stack, 'testnet').getTransactionReceipt(record.txHash);
    expect(receipt!.blockNumber).toBe(record.blockNumber);
    expect(statusesOf(res.body.transactionId)).toEqual(['queued', 'pending', 'success']);
  });

  it('lands a burst of accepted invokes from one wallet, each with its own nonce', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => invoke('bump', {}, ASYNC)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
    const records = await Promise.all(answers.map((a) => settled(a.body.transactionId)));
    expect(records.map((r) => r.status)).toEqual(Array(10).fill('success'));
    expect(new Set(records.map((r) => r.nonce)).size).toBe(10);
  }, 90_000);

  it('accepts async invokes over GraphQL too (status queued, txHash null)', async () => {
    const res = await api.graphql(
      `mutation($id: ID!) { invokeContract(id: $id, method: "bump") { transactionId status txHash } }`,
      { id: contract.id },
      { apiKey: key.apiKey, headers: ASYNC },
    );
    expect(res.body.data.invokeContract).toEqual({
      transactionId: expect.any(String),
      status: 'queued',
      txHash: null,
    });
    expect((await settled(res.body.data.invokeContract.transactionId)).status).toBe('success');
  });

  it('ends an accepted invoke that passed simulation but reverted when mined as reverted, with its reason', async () => {
    const once = await deployRegistered(api, dev, ONCE_SOURCE);
    // Both simulated and sent before either is mined.
    const answers = await invokesSentTogether(stack, api, dev.walletAddress, once.id, 'once', key.apiKey);
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
    const records = await Promise.all(answers.map((a) => settled(a.body.transactionId)));
    const sorted = records.sort((x, y) => String(x.status).localeCompare(String(y.status)));
    expect(sorted.map((r) => r.status)).toEqual(['reverted', 'success']);
    expect(sorted[0]).toMatchObject({ revertReason: 'already done', error: null });
    expect(sorted[0].blockNumber).toBeGreaterThan(0);
    expect(sorted[1].revertReason).toBeNull();
    expect(statusesOf(sorted[0].id)).toEqual(['queued', 'pending', 'reverted']);
  }, 90_000);

  it('ends an accepted invoke the node refuses as failed with the node’s reason, and the wallet goes on', async () => {
    front().inject({ kind: 'refuse', ...BESU_ERRORS.gasPriceTooLow });
    const res = await invoke('bump', {}, ASYNC);
    expect(res.status).toBe(202);
    const record = await settled(res.body.transactionId);
    expect(record.status).toBe('failed');
    expect(record.error).toContain(BESU_ERRORS.gasPriceTooLow.message);
    expect(record.blockNumber).toBeNull();
    expect(statusesOf(res.body.transactionId)).toEqual(['queued', 'pending', 'failed']);
    // Never on chain: no hash or nonce (the next send takes the nonce, maybe with the same bytes).
    expect(record).toMatchObject({ txHash: null, nonce: null });
    expect((await invoke('bump')).body.status).toBe('success');
  }, 60_000);

  it('ends an accepted deployment the node refuses as failed, record and contract alike, with the node’s reason', async () => {
    front().inject({ kind: 'refuse', ...BESU_ERRORS.gasPriceTooLow });
    const res = await api.post(
      '/api/devportal/contracts/deploy',
      { source: ONCE_SOURCE },
      {
        token: dev.token,
        headers: ASYNC,
      },
    );
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ transactionId: expect.any(String), status: 'queued' });
    const record = await settled(res.body.transactionId, { token: dev.token });
    expect(record).toMatchObject({ kind: 'deploy', status: 'failed', txHash: null, blockNumber: null });
    expect(record.error).toContain(BESU_ERRORS.gasPriceTooLow.message);
    expect(statusesOf(res.body.transactionId)).toEqual(['queued', 'pending', 'failed']);
    const until = Date.now() + 10_000;
    let contract = (await api.get(`/api/devportal/contracts/${record.contractId}`)).body;
    while (contract.status === 'deploying' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      contract = (await api.get(`/api/devportal/contracts/${record.contractId}`)).body;
    }
    expect(contract).toMatchObject({ status: 'failed', address: null });
    expect(contract.statusReason).toContain(BESU_ERRORS.gasPriceTooLow.message);
  }, 60_000);

  it('keeps a refused synchronous invoke as a failed record (422, not a lost row)', async () => {
    front().inject({ kind: 'refuse', ...BESU_ERRORS.gasPriceTooLow });
    const before = await sql<{ n: number }>(`SELECT count(*)::int AS n FROM transaction_records WHERE kind = 'invoke'`);
    const res = await invoke('bump');
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('TRANSACTION_REFUSED');
    const rows = await sql<{ status: string; error: string }>(
      `SELECT status, error FROM transaction_records WHERE kind = 'invoke' ORDER BY created_at DESC LIMIT 1`,
    );
    expect(
      (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM transaction_records WHERE kind = 'invoke'`))[0]!.n,
    ).toBe(before[0]!.n + 1);
    expect(rows[0]).toMatchObject({
      status: 'failed',
      error: expect.stringContaining(BESU_ERRORS.gasPriceTooLow.message),
    });
  });

  it('ends an accepted invoke whose send fails before signing as failed (no send: a failing sink rolls back)', async () => {
    failOn = 'pending';
    let res;
    try {
      res = await invoke('bump', {}, ASYNC);
      expect(res.status).toBe(202);
      const until = Date.now() + 30_000;
      while (!statusesOf(res.body.transactionId).includes('failed')) {
        if (Date.now() > until) throw new Error('not ended');
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      failOn = undefined;
    }
    const record = await settled(res.body.transactionId);
    expect(record).toMatchObject({ status: 'failed', txHash: null, nonce: null });
    expect(statusesOf(res.body.transactionId)).toEqual(['queued', 'failed']);
    // The pending change and its signed transaction were rolled back with the sink's failure.
    expect(await sql(`SELECT 1 FROM chain_transactions WHERE record_id = $1`, [res.body.transactionId])).toHaveLength(
      0,
    );
    expect((await invoke('bump')).body.status).toBe('success');
  });

  it('gives every repeat of an async invoke with the same Idempotency-Key the same transactionId', async () => {
    const headers = { ...ASYNC, 'idempotency-key': `async-${Date.now()}` };
    const first = await invoke('bump', {}, headers);
    const again = await invoke('bump', {}, headers);
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    await settled(first.body.transactionId);
    const third = await invoke('bump', {}, headers);
    expect(third.body.transactionId).toBe(first.body.transactionId);
    const [{ n }] = (await sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM chain_transactions c JOIN transaction_records r ON r.id = c.record_id
        WHERE r.id = $1`,
      [first.body.transactionId],
    )) as [{ n: number }];
    expect(n).toBe(1);
  });

  it('still runs every check before answering 202: a simulated revert is 422 and nothing is recorded', async () => {
    const once = await deployRegistered(api, dev, ONCE_SOURCE);
    const url = `/api/devportal/contracts/${once.id}/invoke/once`;
    expect((await api.post(url, {}, { apiKey: key.apiKey })).body.status).toBe('success');
    const before = await sql(`SELECT id FROM transaction_records WHERE contract_id = $1`, [once.id]);
    const res = await api.post(url, {}, { apiKey: key.apiKey, headers: ASYNC });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('EXECUTION_REVERTED');
    const low = await api.post(
      `/api/devportal/contracts/${contract.id}/invoke/bump`,
      { gasLimit: '21000' },
      {
        apiKey: key.apiKey,
        headers: ASYNC,
      },
    );
    expect(low.status).toBe(400);
    expect(await sql(`SELECT id FROM transaction_records WHERE contract_id = $1`, [once.id])).toHaveLength(
      before.length,
    );
  });

  it('ends a sent transaction whose nonce another took as failed, listed so in the wallet history', async () => {
    // A sender whose nonce 0 is taken on chain by a transaction the service did not record.
    const from = new Wallet(ANVIL_KEYS[2]!).address;
    await fund(stack, 'testnet', dev.walletAddress, '1', 2);
    const hash = `0x${'ef'.repeat(32)}`;
    const [row] = await sql<{ id: string }>(
      `INSERT INTO transaction_records (kind, network, developer_id, api_key_id, contract_id, method, status, tx_hash, nonce)
       VALUES ('invoke', 'testnet', $1, $2, $3, 'bump()', 'pending', $4, 0) RETURNING id`,
      [dev.developerId, key.id, contract.id, hash],
    );
    await sql(
      `INSERT INTO chain_transactions (network, from_address, to_address, nonce, tx_hash, raw_tx, kind, value_wei,
                                       developer_id, contract_id, method, status, record_id, created_at)
       VALUES ('testnet', $1, $2, 0, $3, '0x00', 'invoke', '0', $4, $5, 'bump()', 'pending', $6, now() - interval '10 seconds')`,
      [from, dev.walletAddress, hash, dev.developerId, contract.id, row!.id],
    );
    await trackerPass(stack);
    const record = (await getTx(row!.id)).body;
    expect(record).toMatchObject({ status: 'failed', txHash: hash, nonce: 0, blockNumber: null });
    expect(record.error).toMatch(/^dropped: its nonce was used/);
    expect(statusesOf(row!.id)).toEqual(['failed']);
    const history = await api.get(`/api/devportal/developers/${dev.developerId}/wallet-history?limit=100`, {
      token: dev.token,
    });
    expect(history.body.items.find((i: any) => i.txHash === hash)).toMatchObject({
      status: 'failed',
      kind: 'invoke',
      blockNumber: null,
      timestamp: null,
    });
  });

  it('ends a record left queued by a stopped sender as failed with a reason, notified', async () => {
    const [row] = await sql<{ id: string }>(
      `INSERT INTO transaction_records (kind, network, developer_id, api_key_id, contract_id, method, status, created_at)
       VALUES ('invoke', 'testnet', $1, $2, $3, 'bump()', 'queued', now() - interval '10 minutes') RETURNING id`,
      [dev.developerId, key.id, contract.id],
    );
    await trackerPass(stack);
    const record = (await getTx(row!.id)).body;
    expect(record).toMatchObject({ status: 'failed', error: 'not sent: the service stopped before sending it' });
    expect(statusesOf(row!.id)).toEqual(['failed']);
  });

  it('answers 202 alike on the direct path and behind express', async () => {
    const path = `/api/devportal/contracts/${contract.id}/invoke/bump`;
    const send = (url: string, payload: Uint8Array<ArrayBuffer> | string, extra: Record<string, string> = {}) =>
      fetch(`${stack.url}${url}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key.apiKey, prefer: 'respond-async', ...extra },
        body: payload,
      }).then(async (res) => ({ status: res.status, type: res.headers.get('content-type'), body: await res.json() }));
    const answers = [
      await send(path, '{}'),
      await send(`${path}/`, '{}'),
      await send(path, new Uint8Array(gzipSync('{}')), { 'content-encoding': 'gzip' }),
    ];
    for (const a of answers) {
      expect(a).toEqual({
        status: 202,
        type: 'application/json; charset=utf-8',
        body: { transactionId: expect.any(String), status: 'queued' },
      });
    }
    for (const a of answers) expect((await settled(a.body.transactionId)).status).toBe('success');
  }, 60_000);
});

describe('who may read a transaction record', () => {
  let id: string;
  beforeAll(async () => {
    id = (await invoke('bump')).body.transactionId;
  });

  it('answers its developer’s token and the key that sent it', async () => {
    expect((await getTx(id, { token: dev.token })).status).toBe(200);
    expect((await getTx(id, { apiKey: key.apiKey })).status).toBe(200);
    expect((await getTx(id, { headers: { authorization: `Bearer ${key.apiKey}` } })).status).toBe(200);
  });

  it('answers 404 to anyone else, as for an id that does not exist', async () => {
    const unknown = await getTx('00000000-0000-4000-8000-000000000000', { token: dev.token });
    expect(unknown.status).toBe(404);
    for (const opts of [{ token: other.token }, { apiKey: otherKey }, { apiKey: secondKey }]) {
      const res = await getTx(id, opts);
      expect({ status: res.status, body: res.body }).toEqual({ status: unknown.status, body: unknown.body });
    }
    // A drip has no key: only the token reads it.
    expect((await getTx(drip.transactionId, { apiKey: key.apiKey })).status).toBe(404);
  });

  it('answers 401 without credentials or with bad ones, and 400 for a malformed id', async () => {
    const none = await api.get(`/api/devportal/transactions/${id}`);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHENTICATED');
    const badKey = await getTx(id, { apiKey: `svc_${'x'.repeat(43)}` });
    expect(badKey.status).toBe(401);
    expect(badKey.body.error.code).toBe('INVALID_API_KEY');
    const malformed = await getTx('not-a-uuid', { token: dev.token });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'id' } });
  });

  it('applies the same rules over GraphQL', async () => {
    const q = `query($id: ID!) { gatewayTransaction(id: $id) { id status } }`;
    expect((await api.graphql(q, { id }, { apiKey: key.apiKey })).body.data.gatewayTransaction.id).toBe(id);
    expect((await api.graphql(q, { id }, { token: other.token })).body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await api.graphql(q, { id }, { apiKey: secondKey })).body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await api.graphql(q, { id })).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect((await api.graphql(q, { id: 'x' }, { token: dev.token })).body.errors[0].extensions.code).toBe(
      'VALIDATION_FAILED',
    );
  });
});
