/* eslint-disable @typescript-eslint/no-explicit-any -- responses are asserted field by field */
import type { JsonRpcProvider } from 'ethers';
import { providerOf } from './kit/chain';
import { gatewayUser, newKey } from './kit/flows';
import { client, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { ONCE_SOURCE } from './kit/solidity';
import { BESU_MIN_GAS_PRICE, sqlRows, startStack, trackerPass, type Stack } from './kit/stack';
import { RESPOND_ASYNC as ASYNC, recordWhen } from './kit/transaction-records';
import { onOneUtcDay } from './kit/utc-day';

// Cancel of a pending transaction by replacement at its nonce (docs/api.md, "Transactions": cancel).

/** The key's gas of a day: two invokes of 100,000 gas, not one more. */
const GAS_CAP = 200_000n;
const INVOKE_GAS = 100_000n;

interface Chain {
  tx_hash: string;
  kind: string;
  status: string;
  nonce: string;
  from_address: string;
  to_address: string;
  value_wei: string;
  gas_used: string | null;
  fee_per_gas_wei: string;
}

async function setUp(stack: Stack) {
  const api = client(stack.url);
  const user = await gatewayUser(api, stack.ca, ONCE_SOURCE);
  const provider = providerOf(stack, 'testnet');
  return { api, ...user, provider };
}

/** An asynchronous invoke (docs/api.md, "Prefer: respond-async") once its record is `pending`. */
async function pendingInvoke(stack: Stack, api: Client, dev: LoggedIn, path: string, apiKey: string, body = {}) {
  const accepted = await api.post(path, body, { apiKey, headers: ASYNC });
  expect(accepted.status).toBe(202);
  const id: string = accepted.body.transactionId;
  const pending = await recordWhen(stack, api, id, { token: dev.token }, (r) => r.status === 'pending');
  return { id, pending };
}

const chainRows = (stack: Stack, recordId: string) =>
  sqlRows<Chain>(
    stack,
    `SELECT tx_hash, kind, status, nonce::text AS nonce, from_address, to_address, value_wei::text AS value_wei,
            gas_used::text AS gas_used, fee_per_gas_wei::text AS fee_per_gas_wei
       FROM chain_transactions WHERE record_id = $1 ORDER BY created_at`,
    [recordId],
  );

describe('cancel of a pending transaction on a network with fees (anvil, chain 17991)', () => {
  let stack: Stack;
  let api: Client;
  let dev: LoggedIn;
  let contract: { id: string };
  let provider: JsonRpcProvider;
  let key: { id: string; apiKey: string };
  let webhookId: string;
  const invoke = (gasLimit: bigint) =>
    api.post(
      `/api/devportal/contracts/${contract.id}/invoke/bump`,
      { gasLimit: gasLimit.toString() },
      { apiKey: key.apiKey, headers: ASYNC },
    );

  beforeAll(async () => {
    stack = await startStack();
    ({ api, dev, contract, provider } = await setUp(stack));
    key = await newKey(api, dev, { spend: { maxGasPerDay: GAS_CAP.toString() } });
    const hook = await api.post(
      `/api/devportal/developers/${dev.developerId}/webhooks`,
      { url: 'http://127.0.0.1:9/hook', events: ['transaction.status'] },
      { token: dev.token },
    );
    expect(hook.status).toBe(201);
    webhookId = hook.body.id;
  }, 180_000);
  afterAll(async () => {
    await provider?.send('evm_setIntervalMining', [1]).catch(() => undefined);
    provider?.destroy();
    await stack?.stop();
  });

  it('replaces it by a 0-value transfer to itself at its nonce with bumped fees; cancelled once that is mined', async () => {
    // Blocks only on command: the invoke stays in the node's pool, broadcast and not mined.
    await provider.send('evm_setIntervalMining', [0]);
    const accepted = await invoke(INVOKE_GAS);
    expect(accepted.status).toBe(202);
    const id: string = accepted.body.transactionId;
    const pending = await recordWhen(stack, api, id, { token: dev.token }, (r) => r.status === 'pending');

    const cancel = await api.post(`/api/devportal/transactions/${id}/cancel`, {}, { token: dev.token });
    expect(cancel.status).toBe(201);
    // Still pending (its replacement not mined yet), still naming the transaction it sent.
    expect(cancel.body).toMatchObject({ id, status: 'pending', txHash: pending.txHash, nonce: pending.nonce });

    const [original, replacement] = await chainRows(stack, id);
    expect(original).toMatchObject({ tx_hash: pending.txHash, kind: 'invoke', status: 'dropped' });
    expect(replacement).toMatchObject({
      kind: 'cancel',
      status: 'pending',
      nonce: String(pending.nonce),
      to_address: original!.from_address,
      from_address: original!.from_address,
      value_wei: '0',
    });
    // Nodes replace a pooled transaction only for a price at least 10% higher.
    expect(BigInt(replacement!.fee_per_gas_wei) * 10n).toBeGreaterThan(BigInt(original!.fee_per_gas_wei) * 11n);
    const pooled = await provider.getTransaction(replacement!.tx_hash);
    expect(pooled).toMatchObject({ nonce: pending.nonce, value: 0n, to: original!.from_address });

    // Cancelling again sends nothing more.
    expect((await api.post(`/api/devportal/transactions/${id}/cancel`, {}, { token: dev.token })).status).toBe(201);
    expect(await chainRows(stack, id)).toHaveLength(2);

    // The key's day holds the original's 100,000 gas (it may yet be mined instead), not that plus
    // the replacement's: a second invoke of 100,000 fits the 200,000 cap exactly...
    const second = await invoke(INVOKE_GAS);
    expect(second.status).toBe(202);
    const secondRecord = await recordWhen(
      stack,
      api,
      second.body.transactionId,
      { token: dev.token },
      (r) => r.status !== 'queued',
    );
    expect(secondRecord).toMatchObject({ status: 'pending', error: null });
    // ...and nothing more does: the key never spends past its cap, whichever of the two is mined.
    const third = await invoke(30_000n);
    expect(third.status).toBe(202);
    const thirdRecord = await recordWhen(
      stack,
      api,
      third.body.transactionId,
      { token: dev.token },
      (r) => r.status !== 'queued',
    );
    expect(thirdRecord.status).toBe('failed');
    expect(thirdRecord.error).toMatch(/maxGasPerDay/);

    await provider.send('evm_mine', []);
    const cancelled = await recordWhen(stack, api, id, { token: dev.token }, (r) => r.status === 'cancelled', true);
    expect(cancelled).toMatchObject({ status: 'cancelled', txHash: pending.txHash, error: null });
    expect(await provider.getTransactionReceipt(pending.txHash)).toBeNull();
    const mined = (await provider.getTransactionReceipt(replacement!.tx_hash))!;
    expect(mined.status).toBe(1);
    // Its history: accepted, signed (the original), cancelled naming the replacement that was mined.
    expect(cancelled.history.map((h: any) => [h.status, h.txHash, h.reason])).toEqual([
      ['queued', undefined, undefined],
      ['pending', pending.txHash, undefined],
      ['cancelled', replacement!.tx_hash, 'replaced at its nonce'],
    ]);
    expect(cancelled.history[2].at).toBe(cancelled.updatedAt);
    const rows = await chainRows(stack, id);
    expect(rows.map((r) => [r.kind, r.status, r.gas_used])).toEqual([
      ['invoke', 'dropped', null],
      ['cancel', 'success', '21000'],
    ]);

    // The webhooks' transaction.status message says cancelled.
    const messages = await sqlRows<{ body: string }>(
      stack,
      `SELECT body FROM webhook_deliveries WHERE webhook_id = $1 AND type = 'transaction.status' ORDER BY seq`,
      [webhookId],
    );
    const statuses = messages.map((m) => JSON.parse(m.body).data).filter((d: any) => d.id === id);
    expect(statuses.map((d: any) => d.status)).toEqual(['queued', 'pending', 'cancelled']);

    // Spent today: the replacement's gas and the second invoke's, each once; the original's nothing.
    const secondDone = await recordWhen(
      stack,
      api,
      second.body.transactionId,
      { token: dev.token },
      (r) => r.status === 'success',
      true,
    );
    let expected = mined.gasUsed * mined.gasPrice;
    const secondReceipt = (await provider.getTransactionReceipt(secondDone.txHash))!;
    expected += secondReceipt.gasUsed * secondReceipt.gasPrice;
    const keys = await api.get(`/api/devportal/developers/${dev.developerId}/api-keys`, { token: dev.token });
    expect(keys.body.items.find((k: any) => k.id === key.id).spentTodayWei).toBe(expected.toString());
    await provider.send('evm_setIntervalMining', [1]);
  }, 180_000);

  it('cancels a pending deployment: the record cancelled, the contract failed, never created', async () => {
    await provider.send('evm_setIntervalMining', [0]);
    try {
      const accepted = await api.post(
        '/api/devportal/contracts/deploy',
        { source: ONCE_SOURCE },
        { token: dev.token, headers: ASYNC },
      );
      expect(accepted.status).toBe(202);
      const id: string = accepted.body.transactionId;
      const pending = await recordWhen(stack, api, id, { token: dev.token }, (r) => r.status === 'pending');
      expect((await api.post(`/api/devportal/transactions/${id}/cancel`, {}, { token: dev.token })).status).toBe(201);
      await provider.send('evm_mine', []);
      const cancelled = await recordWhen(stack, api, id, { token: dev.token }, (r) => r.status === 'cancelled', true);
      expect(cancelled).toMatchObject({ kind: 'deploy', txHash: pending.txHash });
      const deployed = await api.get(`/api/devportal/contracts/${cancelled.contractId}`);
      expect(deployed.body).toMatchObject({ status: 'failed', address: null });
      expect(deployed.body.statusReason).toMatch(/cancelled/);
    } finally {
      await provider.send('evm_setIntervalMining', [1]);
    }
  }, 180_000);

  it(
    'does not count a cancelled faucet drip against the day: five drips follow it, then 429',
    () =>
      onOneUtcDay(async () => {
        const dripper = await login(api, stack.ca);
        const drip = () => api.post('/api/devportal/faucet/drip', {}, { token: dripper.token });
        const faucetRecords = () =>
          api.get(`/api/devportal/developers/${dripper.developerId}/transactions?kind=faucet`, {
            token: dripper.token,
          });
        await provider.send('evm_setIntervalMining', [0]);
        // The drip answers once mined: this one waits for a receipt that never comes, until its record ends.
        const cancelledDrip = drip();
        // Awaited at the end; should the test fail first, its stack's stop may cut it.
        cancelledDrip.catch(() => undefined);
        try {
          const until = Date.now() + 30_000;
          let listed: any[] = [];
          while (listed[0]?.status !== 'pending') {
            if (Date.now() > until) throw new Error(`the drip is not pending: ${JSON.stringify(listed)}`);
            await new Promise((r) => setTimeout(r, 200));
            listed = (await faucetRecords()).body.items;
          }
          const id: string = listed[0].id;
          const cancel = await api.post(`/api/devportal/transactions/${id}/cancel`, {}, { token: dripper.token });
          expect(cancel.status).toBe(201);
          await provider.send('evm_mine', []);
          const cancelled = await recordWhen(
            stack,
            api,
            id,
            { token: dripper.token },
            (r) => r.status === 'cancelled',
            true,
          );
          expect(cancelled).toMatchObject({ kind: 'faucet', txHash: listed[0].txHash });
          // Whatever tracker pass ended it has run its hooks too.
          await trackerPass(stack);
          // The drip's own answer comes at once, unmined, not at the end of its 60 s bound.
          const waited = Date.now();
          const answer = await cancelledDrip;
          expect(Date.now() - waited).toBeLessThan(10_000);
          expect(answer.status).toBe(201);
          expect(answer.body).toMatchObject({ transactionId: id, blockNumber: null });
        } finally {
          await provider.send('evm_setIntervalMining', [1]);
        }
        // Not counted: the day's five drips are all still there.
        for (let used = 1; used <= 5; used++) {
          const res = await drip();
          expect(res.status).toBe(201);
          expect(res.body).toMatchObject({ dripsUsedToday: used, dripsRemainingToday: 5 - used });
        }
        const sixth = await drip();
        expect(sixth.status).toBe(429);
        expect(sixth.body.error.code).toBe('FAUCET_LIMIT');
      }),
    240_000,
  );

  it('refuses a replacement past the key’s maxFeePerGasWei (422, nothing sent); an original mined first keeps its outcome', async () => {
    const k = await newKey(api, dev);
    const tracker = stack.app.services.tracker;
    // This test plays the node's part: no tracker pass re-broadcasts the replacement meanwhile.
    await tracker.stop();
    await provider.send('evm_setIntervalMining', [0]);
    try {
      const { id, pending } = await pendingInvoke(
        stack,
        api,
        dev,
        `/api/devportal/contracts/${contract.id}/invoke/bump`,
        k.apiKey,
      );
      const [original] = await chainRows(stack, id);
      // The key's fee cap admits the original's price, not the raised one a replacement needs.
      const capped = await api.call(
        'PATCH',
        `/api/devportal/api-keys/${k.id}`,
        { spend: { maxFeePerGasWei: original!.fee_per_gas_wei } },
        { token: dev.token },
      );
      expect(capped.status).toBe(200);
      const refused = await api.post(`/api/devportal/transactions/${id}/cancel`, {}, { token: dev.token });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ code: 'SPEND_LIMIT_EXCEEDED', details: { limit: 'maxFeePerGasWei' } });
      expect((await chainRows(stack, id)).map((r) => [r.kind, r.status])).toEqual([['invoke', 'pending']]);

      // Lifted: the replacement goes out, but the node mines the original first.
      expect(
        (await api.call('PATCH', `/api/devportal/api-keys/${k.id}`, { spend: null }, { token: dev.token })).status,
      ).toBe(200);
      expect((await api.post(`/api/devportal/transactions/${id}/cancel`, {}, { token: dev.token })).status).toBe(201);
      const [, replacement] = await chainRows(stack, id);
      expect(replacement).toMatchObject({ kind: 'cancel', status: 'pending' });
      const [{ raw_tx: raw }] = (await sqlRows<{ raw_tx: string }>(
        stack,
        'SELECT raw_tx FROM chain_transactions WHERE tx_hash = $1',
        [pending.txHash],
      )) as [{ raw_tx: string }];
      await provider.send('anvil_dropTransaction', [replacement!.tx_hash]);
      await provider.send('eth_sendRawTransaction', [raw]);
      await provider.send('evm_mine', []);
      expect((await provider.getTransactionReceipt(pending.txHash))?.status).toBe(1);

      const done = await recordWhen(stack, api, id, { token: dev.token }, (r) => r.status !== 'pending', true);
      expect(done).toMatchObject({ status: 'success', txHash: pending.txHash, error: null });
      expect((await chainRows(stack, id)).map((r) => [r.kind, r.status])).toEqual([
        ['invoke', 'success'],
        ['cancel', 'dropped'],
      ]);
    } finally {
      await provider.send('evm_setIntervalMining', [1]);
      // One timer again, whatever the passes above left running.
      await tracker.stop();
      tracker.start();
    }
  }, 180_000);

  it('answers a synchronous invoke cancelled while it waits for its receipt with cancelled, at once', async () => {
    const k = await newKey(api, dev);
    const pendingIds = async (): Promise<string[]> => {
      const res = await api.get(
        `/api/devportal/developers/${dev.developerId}/transactions?status=pending&kind=invoke`,
        {
          token: dev.token,
        },
      );
      return res.body.items.map((r: any) => r.id);
    };
    await provider.send('evm_setIntervalMining', [0]);
    try {
      const before = new Set(await pendingIds());
      const started = Date.now();
      const answered = api.post(`/api/devportal/contracts/${contract.id}/invoke/bump`, {}, { apiKey: k.apiKey });
      // Its record, pending while the answer waits for a receipt that never comes.
      let id: string | undefined;
      for (let i = 0; i < 200 && id === undefined; i++) {
        id = (await pendingIds()).find((r) => !before.has(r));
        if (id === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      expect(id).toBeDefined();
      expect((await api.post(`/api/devportal/transactions/${id}/cancel`, {}, { token: dev.token })).status).toBe(201);
      await provider.send('evm_mine', []);
      const res = await answered;
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ transactionId: id, status: 'cancelled', blockNumber: null, gasUsed: null });
      // Answered once the replacement was mined, not after the 60 s wait.
      expect(Date.now() - started).toBeLessThan(30_000);
      expect(await provider.getTransactionReceipt(res.body.txHash)).toBeNull();
    } finally {
      await provider.send('evm_setIntervalMining', [1]);
    }
  }, 120_000);

  it('answers 409 INVALID_STATE with the status for a mined transaction', async () => {
    const done = await api.post(
      `/api/devportal/contracts/${contract.id}/invoke/bump`,
      {},
      { apiKey: (await newKey(api, dev)).apiKey },
    );
    expect(done.body.status).toBe('success');
    const res = await api.post(
      `/api/devportal/transactions/${done.body.transactionId}/cancel`,
      {},
      { token: dev.token },
    );
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'INVALID_STATE', details: { status: 'success' } });
  }, 120_000);
});

describe('cancel of a pending transaction on a zero-price network (Besu front, QBFT with gas price 0)', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({}, { freeGas: true });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('answers 409 INVALID_STATE naming the zero gas price, and the transaction is left as it was', async () => {
    const { api, dev, contract, apiKey, provider } = await setUp(stack);
    try {
      await provider.send('evm_setIntervalMining', [0]);
      const { id, pending } = await pendingInvoke(
        stack,
        api,
        dev,
        `/api/devportal/contracts/${contract.id}/invoke/bump`,
        apiKey,
      );
      const res = await api.post(`/api/devportal/transactions/${id}/cancel`, {}, { token: dev.token });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('INVALID_STATE');
      expect(res.body.error.details).toMatchObject({ status: 'pending' });
      expect(res.body.error.message).toMatch(/prices gas at 0/);
      expect((await chainRows(stack, id)).map((r) => [r.kind, r.status])).toEqual([['invoke', 'pending']]);
      await provider.send('evm_mine', []);
      expect(await recordWhen(stack, api, id, { token: dev.token }, (r) => r.status === 'success', true)).toMatchObject(
        {
          txHash: pending.txHash,
        },
      );
    } finally {
      await provider.send('evm_setIntervalMining', [1]).catch(() => undefined);
      provider.destroy();
    }
  }, 180_000);
});

describe('cancel of a pending transaction behind a Besu-faithful front with fees (min gas price 2 gwei)', () => {
  /** The service's fee cap on this network (TESTNET_MAX_FEE_PER_GAS_WEI): 50 gwei. */
  const FEE_CAP = 50_000_000_000n;
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ TESTNET_MAX_FEE_PER_GAS_WEI: FEE_CAP.toString() }, { minGasPrice: BESU_MIN_GAS_PRICE });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('a replacement the node refuses is 409 with its words, the original left pending; the next cancel replaces it', async () => {
    const { api, dev, contract, apiKey, provider } = await setUp(stack);
    const tracker = stack.app.services.tracker;
    // No tracker pass meanwhile: the refusal injected below meets the replacement, not a re-broadcast.
    await tracker.stop();
    await provider.send('evm_setIntervalMining', [0]);
    try {
      const { id, pending } = await pendingInvoke(
        stack,
        api,
        dev,
        `/api/devportal/contracts/${contract.id}/invoke/bump`,
        apiKey,
      );

      // The node will not take the replacement (its pool holds it underpriced, say).
      const underpriced = { code: -32000, message: 'Replacement transaction underpriced' };
      stack.besu!.testnet.front.inject({ kind: 'refuse', ...underpriced });
      const refused = await api.post(`/api/devportal/transactions/${id}/cancel`, {}, { token: dev.token });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('INVALID_STATE');
      expect(refused.body.error.details).toMatchObject({
        status: 'pending',
        reason: expect.stringContaining('the node refused the replacement'),
      });
      expect(refused.body.error.details.reason).toContain(underpriced.message);
      const left = (await chainRows(stack, id)).filter((r) => r.status !== 'dropped');
      expect(left.map((r) => [r.kind, r.status, r.tx_hash])).toEqual([['invoke', 'pending', pending.txHash]]);
      expect((await api.get(`/api/devportal/transactions/${id}`, { token: dev.token })).body).toMatchObject({
        status: 'pending',
        txHash: pending.txHash,
      });

      // Taken this time: replaced at its nonce above the node's floor, cancelled once mined.
      const cancel = await api.post(`/api/devportal/transactions/${id}/cancel`, {}, { token: dev.token });
      expect(cancel.status).toBe(201);
      expect(cancel.body).toMatchObject({ id, status: 'pending', txHash: pending.txHash });
      const replacement = (await chainRows(stack, id)).find((r) => r.kind === 'cancel' && r.status === 'pending')!;
      expect(replacement).toMatchObject({ nonce: String(pending.nonce), value_wei: '0' });
      expect(BigInt(replacement.fee_per_gas_wei)).toBeGreaterThanOrEqual(BESU_MIN_GAS_PRICE);
      await provider.send('evm_mine', []);
      tracker.start();
      const cancelled = await recordWhen(stack, api, id, { token: dev.token }, (r) => r.status === 'cancelled', true);
      expect(cancelled.history.at(-1)).toMatchObject({
        status: 'cancelled',
        txHash: replacement.tx_hash,
        reason: 'replaced at its nonce',
      });
      expect(await provider.getTransactionReceipt(pending.txHash)).toBeNull();
      expect((await provider.getTransactionReceipt(replacement.tx_hash))?.status).toBe(1);
    } finally {
      await provider.send('evm_setIntervalMining', [1]).catch(() => undefined);
      // One timer again, whatever the passes above left running.
      await tracker.stop();
      tracker.start();
      provider.destroy();
    }
  }, 180_000);
  it('fee overrides within the network’s bounds; a pending transaction priced at the service’s fee cap: cancel 409 naming the cap, nothing sent', async () => {
    const { api, dev, contract, apiKey, provider } = await setUp(stack);
    // An invoke's fee overrides stay within the network's bounds: 400 naming the field and the bound.
    const start = await provider.getTransactionCount(dev.walletAddress, 'pending');
    for (const [body, field, bound] of [
      [{ maxFeePerGas: (FEE_CAP + 1n).toString() }, 'maxFeePerGas', { maxFeePerGasWei: FEE_CAP.toString() }],
      [{ gasPrice: (BESU_MIN_GAS_PRICE - 1n).toString() }, 'gasPrice', { minimumWei: BESU_MIN_GAS_PRICE.toString() }],
    ] as const) {
      const res = await api.post(`/api/devportal/contracts/${contract.id}/invoke/bump`, body, { apiKey });
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 400, code: 'INVALID_ARGUMENT' });
      expect(res.body.error.details).toEqual({ field, ...bound });
    }
    expect(await provider.getTransactionCount(dev.walletAddress, 'pending')).toBe(start);
    await provider.send('evm_setIntervalMining', [0]);
    try {
      const { id, pending } = await pendingInvoke(
        stack,
        api,
        dev,
        `/api/devportal/contracts/${contract.id}/invoke/bump`,
        apiKey,
        { maxFeePerGas: FEE_CAP.toString(), maxPriorityFeePerGas: BESU_MIN_GAS_PRICE.toString() },
      );
      // No replacement can offer the 12.5% more a node requires without passing the cap.
      const res = await api.post(`/api/devportal/transactions/${id}/cancel`, {}, { token: dev.token });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ code: 'INVALID_STATE', details: { status: 'pending' } });
      expect(res.body.error.details.reason).toMatch(/above this service's limit of 50000000000 wei/);
      expect((await chainRows(stack, id)).map((r) => [r.kind, r.status])).toEqual([['invoke', 'pending']]);
      await provider.send('evm_mine', []);
      const done = await recordWhen(stack, api, id, { token: dev.token }, (r) => r.status === 'success', true);
      expect(done.txHash).toBe(pending.txHash);
    } finally {
      await provider.send('evm_setIntervalMining', [1]).catch(() => undefined);
      provider.destroy();
    }
  }, 180_000);
});
