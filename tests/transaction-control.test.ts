/* eslint-disable @typescript-eslint/no-explicit-any -- responses are asserted field by field */
import { Client as PgClient } from 'pg';
import { BESU_ERRORS } from './kit/besu-node';
import { deployRegistered, invokesSentTogether, newKey } from './kit/flows';
import type { CallOptions, Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { ONCE_SOURCE } from './kit/solidity';
import { providerOf } from './kit/chain';
import { sqlRows, type Stack } from './kit/stack';
import { onOneUtcDay } from './kit/utc-day';
import { RESPOND_ASYNC as ASYNC, recordCalls, startRecordsUser } from './kit/transaction-records';

// Transaction control (docs/api.md, "Transactions"): every record's history, and the retry of a
// failed one, against real PostgreSQL and anvil behind a Besu-faithful front (to make it refuse).

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let stack: Stack;
let api: Client;
let dev: LoggedIn;
let contract: { id: string; address: string };
let key: { id: string; apiKey: string };

const sql = <T = any>(text: string, params: unknown[] = []) => sqlRows<T>(stack, text, params);
const { invoke, getTx, settled, front } = recordCalls(() => ({ stack, api, contract, key }));
const retry = (id: string, opts: CallOptions = { apiKey: key.apiKey }) =>
  api.post(`/api/devportal/transactions/${id}/retry`, {}, opts);

/** An accepted invoke the node refuses: its record ends failed, nothing of it on chain. */
async function refusedInvoke(apiKey = key.apiKey): Promise<any> {
  front().inject({ kind: 'refuse', ...BESU_ERRORS.gasPriceTooLow });
  const res = await api.post(`/api/devportal/contracts/${contract.id}/invoke/bump`, {}, { apiKey, headers: ASYNC });
  expect(res.status).toBe(202);
  const record = await settled(res.body.transactionId, { token: dev.token });
  expect(record.status).toBe('failed');
  return record;
}

/** The entries' times are ISO-8601 UTC and never go back. */
function expectOrderedTimes(history: Array<{ at: string }>): void {
  for (const h of history) expect(h.at).toMatch(ISO);
  const times = history.map((h) => Date.parse(h.at));
  expect([...times].sort((a, b) => a - b)).toEqual(times);
}

/** Holds the developer's wallet lane (its advisory lock) while `work` runs: accepted invokes stay queued. */
async function withLaneHeld<T>(work: () => Promise<T>): Promise<T> {
  const pg = new PgClient({ connectionString: stack.databaseUrl });
  await pg.connect();
  const lane = `nonce:testnet:${dev.walletAddress}`;
  await pg.query('SELECT pg_advisory_lock(hashtext($1))', [lane]);
  try {
    return await work();
  } finally {
    await pg.query('SELECT pg_advisory_unlock(hashtext($1))', [lane]);
    await pg.end();
  }
}

beforeAll(async () => {
  ({ stack, api, dev, contract, key } = await startRecordsUser());
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

describe('history', () => {
  it('a mined invoke: queued, pending with its hash, success with its hash; REST leaves absent parts out', async () => {
    const res = await invoke('bump');
    expect(res.status).toBe(201);
    const record = (await getTx(res.body.transactionId)).body;
    expect(record.history).toEqual([
      { status: 'queued', at: expect.any(String) },
      { status: 'pending', at: expect.any(String), txHash: res.body.txHash },
      { status: 'success', at: expect.any(String), txHash: res.body.txHash },
    ]);
    expectOrderedTimes(record.history);
    expect(record.history[0].at).toBe(record.createdAt);
    expect(record.history[2].at).toBe(record.updatedAt);
  });

  it('a reverted invoke carries its revert reason as the reason', async () => {
    const once = await deployRegistered(api, dev, ONCE_SOURCE);
    // Both simulated and sent before either is mined: the second reverts when mined.
    const answers = await invokesSentTogether(stack, api, dev.walletAddress, once.id, 'once', key.apiKey);
    const records = await Promise.all(answers.map((a) => settled(a.body.transactionId)));
    const reverted = records.find((r) => r.status === 'reverted');
    expect(reverted.history).toEqual([
      { status: 'queued', at: expect.any(String) },
      { status: 'pending', at: expect.any(String), txHash: reverted.txHash },
      { status: 'reverted', at: expect.any(String), txHash: reverted.txHash, reason: 'already done' },
    ]);
  }, 90_000);

  it('a refused invoke: failed with the node’s reason and no hash (nothing of it is on chain)', async () => {
    front().inject({ kind: 'refuse', ...BESU_ERRORS.gasPriceTooLow });
    const res = await invoke('bump', {}, ASYNC);
    expect(res.status).toBe(202);
    const record = await settled(res.body.transactionId);
    expect(record.status).toBe('failed');
    expect(record.history.map((h: any) => h.status)).toEqual(['queued', 'pending', 'failed']);
    expect(record.history[1].txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(record.history[2]).toEqual({
      status: 'failed',
      at: expect.any(String),
      reason: expect.stringContaining(BESU_ERRORS.gasPriceTooLow.message),
    });
    expectOrderedTimes(record.history);
  }, 60_000);

  it('a cancelled one: queued, then cancelled with the reason; the list and GraphQL show the same', async () => {
    const accepted = await withLaneHeld(async () => {
      const res = await invoke('bump', {}, ASYNC);
      expect(res.status).toBe(202);
      const cancel = await api.post(`/api/devportal/transactions/${res.body.transactionId}/cancel`, {}, key);
      expect(cancel.status).toBe(201);
      expect(cancel.body.history).toEqual([
        { status: 'queued', at: expect.any(String) },
        { status: 'cancelled', at: expect.any(String), reason: 'cancelled before it was signed' },
      ]);
      return res.body;
    });
    const listed = await api.get(`/api/devportal/developers/${dev.developerId}/transactions?status=cancelled`, {
      token: dev.token,
    });
    expect(listed.body.items.map((i: any) => [i.id, i.history.map((h: any) => h.status)])).toEqual([
      [accepted.transactionId, ['queued', 'cancelled']],
    ]);
    expect(listed.body.items[0].history[0]).not.toHaveProperty('reason');
    const gql = await api.graphql(
      'query($id: ID!) { gatewayTransaction(id: $id) { status history { status at txHash reason } } }',
      { id: accepted.transactionId },
      { token: dev.token },
    );
    expect(gql.body.data.gatewayTransaction.history).toEqual([
      { status: 'queued', at: expect.stringMatching(ISO), txHash: null, reason: null },
      { status: 'cancelled', at: expect.stringMatching(ISO), txHash: null, reason: 'cancelled before it was signed' },
    ]);
  }, 60_000);

  it('is in the devportal OpenAPI document: history required, txHash and reason optional', async () => {
    const doc = (await api.get('/api/devportal/openapi.json')).body;
    const entry = doc.components.schemas.TransactionHistoryEntry;
    expect(Object.keys(entry.properties).sort()).toEqual(['at', 'reason', 'status', 'txHash']);
    expect(doc.components.schemas.GatewayTransaction.required).toContain('history');
  });
});

describe('retry', () => {
  it('sends a failed invoke again under the same record, once; the history shows both attempts', async () => {
    const failed = await refusedInvoke();
    const provider = providerOf(stack, 'testnet');
    const before = await provider.getTransactionCount(dev.walletAddress, 'pending');
    const res = await retry(failed.id);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: failed.id, status: 'pending', error: null, txHash: expect.any(String) });
    const record = await settled(failed.id);
    expect(record).toMatchObject({ id: failed.id, status: 'success', txHash: res.body.txHash, error: null });
    expect(record.history.map((h: any) => [h.status, h.reason ?? null])).toEqual([
      ['queued', null],
      ['pending', null],
      ['failed', expect.stringContaining(BESU_ERRORS.gasPriceTooLow.message)],
      ['queued', 'retried'],
      ['pending', null],
      ['success', null],
    ]);
    expect(record.history[4].txHash).toBe(res.body.txHash);
    expectOrderedTimes(record.history);
    expect(await provider.getTransactionCount(dev.walletAddress, 'pending')).toBe(before + 1);
    expect((await provider.getTransaction(res.body.txHash))!.to).toBe(contract.address);
    // One record, one mined transaction (the refused bytes may be signed again alike, at the freed nonce).
    expect(
      await sql(`SELECT status FROM chain_transactions WHERE record_id = $1 AND status <> 'dropped'`, [failed.id]),
    ).toEqual([{ status: 'success' }]);
    provider.destroy();
  }, 90_000);

  it('only a failed record: another status is 409 INVALID_STATE naming it; unknown 404, malformed 400', async () => {
    const mined = await invoke('bump');
    const again = await retry(mined.body.transactionId);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'INVALID_STATE', details: { status: 'success' } });
    // A body field the endpoint does not know is named, on retry and cancel alike.
    for (const lever of ['retry', 'cancel']) {
      const unknown = await api.post(
        `/api/devportal/transactions/${mined.body.transactionId}/${lever}`,
        { maxFeePerGas: '1' },
        { token: dev.token },
      );
      expect({ lever, status: unknown.status, code: unknown.body.error.code }).toEqual({
        lever,
        status: 400,
        code: 'VALIDATION_FAILED',
      });
      expect(JSON.stringify(unknown.body.error)).toContain('maxFeePerGas');
    }
    expect((await retry('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await retry('nope')).status).toBe(400);
    // Someone else (another developer, another key of the same developer) gets 404, as for no record.
    const stranger = await login(api, stack.ca);
    expect((await retry(mined.body.transactionId, { token: stranger.token })).status).toBe(404);
    expect((await retry(mined.body.transactionId, { apiKey: (await newKey(api, dev)).apiKey })).status).toBe(404);
    expect((await api.post(`/api/devportal/transactions/${mined.body.transactionId}/retry`, {})).status).toBe(401);
  });

  it('a failed record whose transaction was mined after all, a deployment or a drip: 409, nothing sent', async () => {
    const mined = await invoke('bump');
    await sql(`UPDATE transaction_records SET status = 'failed', error = 'dropped: not seen' WHERE id = $1`, [
      mined.body.transactionId,
    ]);
    const res = await retry(mined.body.transactionId, { token: dev.token });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('may still be mined');
    const [drip] = await sql<{ id: string }>(`SELECT id FROM transaction_records WHERE kind = 'faucet' LIMIT 1`);
    await sql(`UPDATE transaction_records SET status = 'failed' WHERE id = $1`, [drip!.id]);
    const dripRetry = await retry(drip!.id, { token: dev.token });
    expect(dripRetry.status).toBe(409);
    expect(dripRetry.body.error).toMatchObject({ code: 'INVALID_STATE', details: { kind: 'faucet' } });
  });

  it('two retries at once: one sends, the other is 409; the transaction goes out once', async () => {
    const failed = await refusedInvoke();
    const answers = await Promise.all([retry(failed.id), retry(failed.id, { token: dev.token })]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    const refused = answers.find((a) => a.status === 409)!;
    expect(['queued', 'pending', 'success']).toContain(refused.body.error.details.status);
    await settled(failed.id);
    expect(
      await sql(`SELECT status FROM chain_transactions WHERE record_id = $1 AND status <> 'dropped'`, [failed.id]),
    ).toEqual([{ status: 'success' }]);
  }, 90_000);

  it('meets the key’s spend caps as they are now (422, the record stays failed), and refuses a revoked key', async () => {
    const capped = await newKey(api, dev);
    const failed = await refusedInvoke(capped.apiKey);
    const patch = (spend: unknown) =>
      api.call('PATCH', `/api/devportal/api-keys/${capped.id}`, { spend }, { token: dev.token });
    expect((await patch({ maxFeePerGasWei: '1' })).status).toBe(200);
    const refused = await retry(failed.id, { token: dev.token });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'SPEND_LIMIT_EXCEEDED', details: { limit: 'maxFeePerGasWei' } });
    const still = (await getTx(failed.id, { token: dev.token })).body;
    expect(still.status).toBe('failed');
    expect(still.history).toHaveLength(3);

    expect((await patch(null)).status).toBe(200);
    const gql = await api.graphql(
      'mutation($id: ID!) { retryTransaction(id: $id) { id status history { status reason } } }',
      { id: failed.id },
      { apiKey: capped.apiKey },
    );
    expect(gql.body.data.retryTransaction).toMatchObject({ id: failed.id, status: 'pending' });
    expect((await settled(failed.id, { token: dev.token })).status).toBe('success');

    const revokedKey = await newKey(api, dev);
    const orphan = await refusedInvoke(revokedKey.apiKey);
    expect((await api.del(`/api/devportal/api-keys/${revokedKey.id}`, { token: dev.token })).status).toBe(200);
    const res = await retry(orphan.id, { token: dev.token });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain('revoked');
  }, 120_000);
});

describe('spend of an invoke the node refuses', () => {
  it('gives back what it reserved at once: nothing counted, and the day’s gas is there for the next', () =>
    onOneUtcDay(async () => {
      const capped = await newKey(api, dev, { spend: { maxGasPerDay: '150000' } });
      const bump = () =>
        api.post(
          `/api/devportal/contracts/${contract.id}/invoke/bump`,
          { gasLimit: '100000' },
          { apiKey: capped.apiKey },
        );
      const spent = async () =>
        (
          (await api.get(`/api/devportal/developers/${dev.developerId}/api-keys`, { token: dev.token })).body
            .items as any[]
        ).find((k) => k.id === capped.id).spentTodayWei;
      front().inject({ kind: 'refuse', ...BESU_ERRORS.gasPriceTooLow });
      const refused = await bump();
      expect(refused.status).toBe(422);
      expect(refused.body.error.code).toBe('TRANSACTION_REFUSED');
      expect(await spent()).toBe('0');
      // Had its 100,000 gas stayed reserved, this one would pass the 150,000 of the day.
      const sent = await bump();
      expect({ status: sent.status, outcome: sent.body.status }).toEqual({ status: 201, outcome: 'success' });
      const provider = providerOf(stack, 'testnet');
      const receipt = (await provider.getTransactionReceipt(sent.body.txHash))!;
      provider.destroy();
      expect(await spent()).toBe((receipt.gasUsed * receipt.gasPrice).toString());
    }));
});
