/* eslint-disable @typescript-eslint/no-explicit-any -- responses are asserted field by field */
import { JsonRpcProvider, Wallet } from 'ethers';
import WebSocket from 'ws';
import { ANVIL_KEYS, providerOf } from './kit/chain';
import { client, type Client } from './kit/http';
import { deployRegistered, gatewayUser, newKey, type DeployedContract } from './kit/flows';
import { login, type LoggedIn } from './kit/login';
import { spawnSibling, type ServiceProcess } from './kit/process';
import { startStack, trackerPass, type Stack } from './kit/stack';
import { onOneUtcDay } from './kit/utc-day';

// Spend caps of API keys (docs/api.md, "API keys": spend caps), against a real PostgreSQL and anvil:
// refusals send nothing, and the caps of a day hold exactly across two instances.

const TILL_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

contract Till {
    uint256 public total;
    function pay() external payable { total += msg.value; }
    function bump() external { total += 1; }
}
`;

let stack: Stack;
let api: Client;
let dev: LoggedIn;
let till: DeployedContract;
let provider: JsonRpcProvider;

const keysUrl = () => `/api/devportal/developers/${dev.developerId}/api-keys`;
const patch = (keyId: string, body: unknown) =>
  api.call('PATCH', `/api/devportal/api-keys/${keyId}`, body, { token: dev.token });
const listItem = async (keyId: string) =>
  ((await api.get(keysUrl(), { token: dev.token })).body.items as any[]).find((k) => k.id === keyId);
const pay = (apiKey: string, value: string, on: Client = api) =>
  on.post(`/api/devportal/contracts/${till.id}/invoke/pay`, { value }, { apiKey });
const nonce = () => provider.getTransactionCount(dev.walletAddress, 'pending');

beforeAll(async () => {
  stack = await startStack();
  api = client(stack.url);
  dev = await login(api, stack.ca);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
  till = await deployRegistered(api, dev, TILL_SOURCE);
  provider = providerOf(stack, 'testnet');
}, 180_000);
afterAll(async () => {
  provider?.destroy();
  await stack?.stop();
});

describe('spend caps at creation and by PATCH', () => {
  it('stores and lists the caps; PATCH replaces them, null lifts them', async () => {
    const k = await newKey(api, dev, { spend: { maxValueWeiPerTx: '1000', maxGasPerDay: '5000000' } });
    expect((await listItem(k.id)).spend).toEqual({
      maxValueWeiPerTx: '1000',
      maxValueWeiPerDay: null,
      maxFeePerGasWei: null,
      maxGasPerDay: '5000000',
    });
    const patched = await patch(k.id, { spend: { maxValueWeiPerDay: '123456789012345678901234567890' } });
    expect(patched.status).toBe(200);
    expect(patched.body.spend).toEqual({
      maxValueWeiPerTx: null,
      maxValueWeiPerDay: '123456789012345678901234567890',
      maxFeePerGasWei: null,
      maxGasPerDay: null,
    });
    expect((await patch(k.id, { spend: null })).body.spend).toBeNull();
  });

  it('refuses caps that are not decimal strings and unknown cap fields (400 naming them)', async () => {
    for (const spend of [{ maxValueWeiPerTx: '-1' }, { maxValueWeiPerTx: '0x10' }, { maxGasPerDay: '1.5' }]) {
      const res = await api.post(keysUrl(), { spend }, { token: dev.token });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(res.body.error)).toMatch(/spend\.(maxValueWeiPerTx|maxGasPerDay)/);
    }
    const unknown = await api.post(keysUrl(), { spend: { maxWei: '1' } }, { token: dev.token });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body.error)).toContain('maxWei');
  });
});

describe('refusals send nothing', () => {
  it('maxValueWeiPerTx: a larger value is 422 SPEND_LIMIT_EXCEEDED with the limit and what is left', async () => {
    const k = await newKey(api, dev, { spend: { maxValueWeiPerTx: '1000' } });
    const before = await nonce();
    const res = await pay(k.apiKey, '1001');
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: 'SPEND_LIMIT_EXCEEDED',
      details: { limit: 'maxValueWeiPerTx', max: '1000', left: '1000', requested: '1001' },
    });
    expect(await nonce()).toBe(before);
    const ok = await pay(k.apiKey, '1000');
    expect({ status: ok.status, outcome: ok.body.status }).toEqual({ status: 201, outcome: 'success' });
  });

  it('maxFeePerGasWei: a network fee above the cap is refused', async () => {
    const k = await newKey(api, dev, { spend: { maxFeePerGasWei: '1' } });
    const before = await nonce();
    const res = await pay(k.apiKey, '1');
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: 'SPEND_LIMIT_EXCEEDED',
      details: { limit: 'maxFeePerGasWei', max: '1' },
    });
    expect(await nonce()).toBe(before);
  });

  it('maxGasPerDay: counts gas used once mined; the next invoke past it is refused', () =>
    onOneUtcDay(async () => {
      const probe = await pay((await newKey(api, dev)).apiKey, '0');
      expect(probe.status).toBe(201);
      const gasUsed = BigInt(probe.body.gasUsed);
      // Room for one invoke's gas limit (estimate plus margin) but not for a second one's.
      const cap = gasUsed + 40_000n;
      const k = await newKey(api, dev, { spend: { maxGasPerDay: cap.toString() } });
      const first = await pay(k.apiKey, '0');
      expect(first.status).toBe(201);
      const before = await nonce();
      const second = await pay(k.apiKey, '0');
      expect(second.status).toBe(422);
      expect(second.body.error).toMatchObject({
        code: 'SPEND_LIMIT_EXCEEDED',
        details: { limit: 'maxGasPerDay', max: cap.toString(), left: (cap - BigInt(first.body.gasUsed)).toString() },
      });
      expect(await nonce()).toBe(before);
    }));

  it('the GraphQL face refuses the same way, every cap, and sends what fits', () =>
    onOneUtcDay(async () => {
      const gqlPay = (apiKey: string, value: string) =>
        api.graphql(
          `mutation($id: ID!, $v: String) { invokeContract(id: $id, method: "pay", value: $v) { status } }`,
          { id: till.id, v: value },
          { apiKey },
        );
      const refusal = (res: { body: any }) => ({
        code: res.body.errors?.[0]?.extensions?.code,
        limit: res.body.errors?.[0]?.extensions?.details?.limit,
      });
      const before = await nonce();
      const perTx = await newKey(api, dev, { spend: { maxValueWeiPerTx: '5' } });
      expect(refusal(await gqlPay(perTx.apiKey, '6'))).toEqual({
        code: 'SPEND_LIMIT_EXCEEDED',
        limit: 'maxValueWeiPerTx',
      });
      const fee = await newKey(api, dev, { spend: { maxFeePerGasWei: '1' } });
      expect(refusal(await gqlPay(fee.apiKey, '0'))).toEqual({
        code: 'SPEND_LIMIT_EXCEEDED',
        limit: 'maxFeePerGasWei',
      });
      const gas = await newKey(api, dev, { spend: { maxGasPerDay: '21000' } });
      expect(refusal(await gqlPay(gas.apiKey, '0'))).toEqual({ code: 'SPEND_LIMIT_EXCEEDED', limit: 'maxGasPerDay' });
      expect(await nonce()).toBe(before);
      expect((await gqlPay(perTx.apiKey, '5')).body.data.invokeContract.status).toBe('success');
      const day = await newKey(api, dev, { spend: { maxValueWeiPerDay: '10' } });
      expect((await gqlPay(day.apiKey, '6')).body.data.invokeContract.status).toBe('success');
      const past = await gqlPay(day.apiKey, '6');
      expect(refusal(past)).toEqual({ code: 'SPEND_LIMIT_EXCEEDED', limit: 'maxValueWeiPerDay' });
      expect(past.body.errors[0].extensions.details).toMatchObject({ max: '10', left: '4', requested: '6' });
      expect(await nonce()).toBe(before + 2);
    }));
});

describe('spentTodayWei', () => {
  it('is value plus gas used × effective gas price of the key’s transactions of the day', () =>
    onOneUtcDay(async () => {
      const k = await newKey(api, dev);
      const a = await pay(k.apiKey, '777');
      const b = await pay(k.apiKey, '0');
      let expected = 777n;
      for (const r of [a, b]) {
        expect(r.status).toBe(201);
        const receipt = (await provider.getTransactionReceipt(r.body.txHash))!;
        expected += receipt.gasUsed * receipt.gasPrice;
      }
      expect((await listItem(k.id)).spentTodayWei).toBe(expected.toString());
    }));
});

describe('the JSON-RPC door', () => {
  async function sendRaw(apiKey: string, signed: string) {
    const res = await fetch(`${stack.url}/rpc/testnet/${apiKey}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [signed] }),
    });
    return (await res.json()) as any;
  }

  it('eth_sendRawTransaction meets the caps; a transaction the node refuses gives back its reservation', () =>
    onOneUtcDay(async () => {
      const wallet = new Wallet(ANVIL_KEYS[1]!);
      const k = await newKey(api, dev, { spend: { maxValueWeiPerTx: '100', maxValueWeiPerDay: '150' } });
      const sign = (value: bigint, nonce: number) =>
        wallet.signTransaction({
          to: wallet.address,
          value,
          nonce,
          gasLimit: 21_000n,
          gasPrice: 10_000_000_000n,
          chainId: 17991n,
        });
      const start = await provider.getTransactionCount(wallet.address, 'pending');
      const tooMuch = await sendRaw(k.apiKey, await sign(101n, start));
      expect(tooMuch.error).toMatchObject({
        code: -32003,
        data: { limit: 'maxValueWeiPerTx', max: '100', left: '100', requested: '101' },
      });
      expect(await provider.getTransactionCount(wallet.address, 'pending')).toBe(start);
      const first = await sendRaw(k.apiKey, await sign(100n, start));
      expect(first.result).toMatch(/^0x[0-9a-f]{64}$/);
      await provider.waitForTransaction(first.result as string);
      // Sent twice: relayed, counted once.
      await sendRaw(k.apiKey, await sign(100n, start));
      const past = await sendRaw(k.apiKey, await sign(60n, start + 1));
      expect(past.error).toMatchObject({ code: -32003, data: { limit: 'maxValueWeiPerDay', left: '50' } });
      // A nonce already used: the node refuses it, and its 40 wei come back.
      const refused = await sendRaw(k.apiKey, await sign(40n, start));
      expect(refused.error).toBeDefined();
      const last = await sendRaw(k.apiKey, await sign(50n, start + 1));
      expect(last.result).toMatch(/^0x[0-9a-f]{64}$/);
      await provider.waitForTransaction(last.result as string);
      expect(await provider.getTransactionCount(wallet.address, 'latest')).toBe(start + 2);
      // Once their receipts are known, the two also count their fees (gas used × effective gas price).
      await trackerPass(stack);
      let fees = 0n;
      for (const hash of [first.result, last.result] as string[]) {
        const receipt = (await provider.getTransactionReceipt(hash))!;
        fees += receipt.gasUsed * receipt.gasPrice;
      }
      expect((await listItem(k.id)).spentTodayWei).toBe((150n + fees).toString());
    }));

  it('maxFeePerGasWei: a price above the cap is refused, nothing relayed; at the cap it is relayed', async () => {
    const wallet = new Wallet(ANVIL_KEYS[1]!);
    const k = await newKey(api, dev, { spend: { maxFeePerGasWei: '20000000000' } });
    const start = await provider.getTransactionCount(wallet.address, 'pending');
    const sign = (gasPrice: bigint) =>
      wallet.signTransaction({
        to: wallet.address,
        value: 1n,
        nonce: start,
        gasLimit: 21_000n,
        gasPrice,
        chainId: 17991n,
      });
    const over = await sendRaw(k.apiKey, await sign(20_000_000_001n));
    expect(over.error).toMatchObject({
      code: -32003,
      data: { limit: 'maxFeePerGasWei', max: '20000000000', requested: '20000000001' },
    });
    expect(await provider.getTransactionCount(wallet.address, 'pending')).toBe(start);
    const ok = await sendRaw(k.apiKey, await sign(20_000_000_000n));
    expect(ok.result).toMatch(/^0x[0-9a-f]{64}$/);
    await provider.waitForTransaction(ok.result as string);
  });

  it('a contract creation (a deploy through the door) meets the caps as any raw transaction', async () => {
    const wallet = new Wallet(ANVIL_KEYS[1]!);
    const k = await newKey(api, dev, { spend: { maxGasPerDay: '60000' } });
    const start = await provider.getTransactionCount(wallet.address, 'pending');
    // Init code that deploys an empty contract: PUSH1 0 PUSH1 0 RETURN.
    const sign = (gasLimit: bigint) =>
      wallet.signTransaction({
        data: '0x60006000f3',
        nonce: start,
        gasLimit,
        gasPrice: 10_000_000_000n,
        chainId: 17991n,
      });
    const over = await sendRaw(k.apiKey, await sign(60_001n));
    expect(over.error).toMatchObject({
      code: -32003,
      data: { limit: 'maxGasPerDay', max: '60000', requested: '60001' },
    });
    expect(await provider.getTransactionCount(wallet.address, 'pending')).toBe(start);
    const ok = await sendRaw(k.apiKey, await sign(60_000n));
    expect(ok.result).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await provider.waitForTransaction(ok.result as string))?.contractAddress).toMatch(/^0x/);
  });

  it('over the door’s WebSocket too: a raw transaction past a cap is refused, one within it relayed', async () => {
    const wallet = new Wallet(ANVIL_KEYS[2]!);
    const k = await newKey(api, dev, { spend: { maxValueWeiPerTx: '100' } });
    const start = await provider.getTransactionCount(wallet.address, 'pending');
    const sign = (value: bigint) =>
      wallet.signTransaction({
        to: wallet.address,
        value,
        nonce: start,
        gasLimit: 21_000n,
        gasPrice: 10_000_000_000n,
        chainId: 17991n,
      });
    const ws = new WebSocket(`${stack.url.replace('http', 'ws')}/rpc/testnet/${k.apiKey}`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const send = (signed: string) =>
      new Promise<any>((resolve) => {
        ws.once('message', (data) => resolve(JSON.parse(String(data))));
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [signed] }));
      });
    try {
      const over = await send(await sign(101n));
      expect(over.error).toMatchObject({ code: -32003, data: { limit: 'maxValueWeiPerTx', requested: '101' } });
      expect(await provider.getTransactionCount(wallet.address, 'pending')).toBe(start);
      const ok = await send(await sign(100n));
      expect(ok.result).toMatch(/^0x[0-9a-f]{64}$/);
      await provider.waitForTransaction(ok.result as string);
    } finally {
      ws.close();
    }
  });

  it('settles a door transaction against its receipt: gas used × effective price, value, counted once', () =>
    onOneUtcDay(async () => {
      const wallet = new Wallet(ANVIL_KEYS[2]!);
      const k = await newKey(api, dev, { spend: { maxGasPerDay: '50000' } });
      const sign = (nonce: number, gasLimit: bigint) =>
        wallet.signTransaction({
          to: wallet.address,
          value: 5n,
          nonce,
          gasLimit,
          gasPrice: 10_000_000_000n,
          chainId: 17991n,
        });
      const tracker = stack.app.services.tracker;
      await tracker.stop();
      try {
        const start = await provider.getTransactionCount(wallet.address, 'pending');
        const firstSigned = await sign(start, 30_000n);
        const first = await sendRaw(k.apiKey, firstSigned);
        expect(first.result).toMatch(/^0x[0-9a-f]{64}$/);
        await provider.waitForTransaction(first.result as string);
        // Before its receipt is settled the send counts its gas limit and its value only.
        expect((await listItem(k.id)).spentTodayWei).toBe('5');
        const early = await sendRaw(k.apiKey, await sign(start + 1, 29_000n));
        expect(early.error).toMatchObject({ code: -32003, data: { limit: 'maxGasPerDay', left: '20000' } });

        await tracker.tick();
        const receipt = (await provider.getTransactionReceipt(first.result as string))!;
        expect(receipt.gasUsed).toBe(21_000n);
        const [row] = await stack.app.dataSource.query(
          `SELECT gas_used::text AS gas, effective_gas_price_wei::text AS price, block_number::int AS block,
                settled_at IS NOT NULL AS settled
           FROM api_key_door_sends WHERE tx_hash = $1`,
          [first.result],
        );
        expect(row).toEqual({
          gas: '21000',
          price: receipt.gasPrice.toString(),
          block: receipt.blockNumber,
          settled: true,
        });
        const firstSpend = 5n + receipt.gasUsed * receipt.gasPrice;
        expect((await listItem(k.id)).spentTodayWei).toBe(firstSpend.toString());

        // Settled: gas used (21,000) instead of the limit, so 29,000 more fit in the day's 50,000.
        const second = await sendRaw(k.apiKey, await sign(start + 1, 29_000n));
        expect(second.result).toMatch(/^0x[0-9a-f]{64}$/);
        await provider.waitForTransaction(second.result as string);
        // The same bytes again, and further passes: relayed or settled, never counted twice.
        await sendRaw(k.apiKey, firstSigned);
        await tracker.tick();
        await tracker.tick();
        const secondReceipt = (await provider.getTransactionReceipt(second.result as string))!;
        expect((await listItem(k.id)).spentTodayWei).toBe(
          (firstSpend + 5n + secondReceipt.gasUsed * secondReceipt.gasPrice).toString(),
        );
        const over = await sendRaw(k.apiKey, await sign(start + 2, 21_000n));
        expect(over.error).toMatchObject({ code: -32003, data: { limit: 'maxGasPerDay', left: '8000' } });
      } finally {
        tracker.start();
      }
    }));
});

describe('invoke fee overrides (docs/api.md, Gateway)', () => {
  const invoke = (apiKey: string, body: Record<string, unknown>) =>
    api.post(`/api/devportal/contracts/${till.id}/invoke/bump`, body, { apiKey });

  it('signs with the maxFeePerGas and maxPriorityFeePerGas asked', async () => {
    const k = await newKey(api, dev);
    const res = await invoke(k.apiKey, { maxFeePerGas: '30000000000', maxPriorityFeePerGas: '2000000000' });
    expect({ status: res.status, outcome: res.body.status }).toEqual({ status: 201, outcome: 'success' });
    const tx = (await provider.getTransaction(res.body.txHash))!;
    expect({ type: tx.type, maxFee: tx.maxFeePerGas, tip: tx.maxPriorityFeePerGas }).toEqual({
      type: 2,
      maxFee: 30_000_000_000n,
      tip: 2_000_000_000n,
    });
  });

  it('signs a legacy transaction with the gasPrice asked', async () => {
    const k = await newKey(api, dev);
    const res = await invoke(k.apiKey, { gasPrice: '0x6fc23ac00' });
    expect(res.status).toBe(201);
    const tx = (await provider.getTransaction(res.body.txHash))!;
    expect({ type: tx.type, gasPrice: tx.gasPrice }).toEqual({ type: 0, gasPrice: 30_000_000_000n });
  });

  it('refuses contradictory, malformed and unknown fields (400 naming them), nothing sent', async () => {
    const k = await newKey(api, dev);
    const before = await nonce();
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ gasPrice: '1', maxFeePerGas: '2' }, 400, 'gasPrice'],
      [{ maxFeePerGas: '1000000000', maxPriorityFeePerGas: '2000000000' }, 400, 'maxPriorityFeePerGas'],
      [{ maxFeePerGas: '-5' }, 400, 'maxFeePerGas'],
      [{ timeoutSeconds: 0 }, 400, 'timeoutSeconds'],
      [{ timeoutSeconds: 604_801 }, 400, 'timeoutSeconds'],
      [{ maxFee: '1' }, 400, 'maxFee'],
    ];
    for (const [body, status, field] of cases) {
      const res = await invoke(k.apiKey, body);
      expect({ body, status: res.status }).toEqual({ body, status });
      expect(JSON.stringify(res.body.error)).toContain(field);
    }
    expect(await nonce()).toBe(before);
  });

  it('a fee above the key’s maxFeePerGasWei is 422 SPEND_LIMIT_EXCEEDED; below it is sent', async () => {
    const k = await newKey(api, dev, { spend: { maxFeePerGasWei: '40000000000' } });
    const before = await nonce();
    const over = await invoke(k.apiKey, { maxFeePerGas: '40000000001', maxPriorityFeePerGas: '2000000000' });
    expect(over.status).toBe(422);
    expect(over.body.error).toMatchObject({
      code: 'SPEND_LIMIT_EXCEEDED',
      details: { limit: 'maxFeePerGasWei', requested: '40000000001' },
    });
    expect(await nonce()).toBe(before);
    const ok = await invoke(k.apiKey, { maxFeePerGas: '40000000000', maxPriorityFeePerGas: '2000000000' });
    expect(ok.status).toBe(201);
  });
});

describe('on two instances', () => {
  let sibling: ServiceProcess;
  beforeAll(async () => {
    sibling = await spawnSibling(stack);
  }, 60_000);
  afterAll(async () => {
    await sibling?.stop();
  });

  it(
    '50 concurrent invokes: exactly maxValueWeiPerDay is spent, the rest 422 with nothing sent',
    () =>
      onOneUtcDay(async () => {
        const siblingApi = client(sibling.url);
        const k = await newKey(api, dev, { spend: { maxValueWeiPerDay: '10000' } });
        const tillBefore = await provider.getBalance(till.address);
        const nonceBefore = await nonce();
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => pay(k.apiKey, '1000', i % 2 ? siblingApi : api)),
        );
        const ok = results.filter((r) => r.status === 201);
        const refused = results.filter((r) => r.status === 422);
        expect(ok).toHaveLength(10);
        expect(refused).toHaveLength(40);
        for (const r of ok) expect(r.body.status).toBe('success');
        for (const r of refused) {
          expect(r.body.error).toMatchObject({ code: 'SPEND_LIMIT_EXCEEDED', details: { limit: 'maxValueWeiPerDay' } });
        }
        expect(await provider.getBalance(till.address)).toBe(tillBefore + 10_000n);
        expect(await nonce()).toBe(nonceBefore + 10);
        const item = await listItem(k.id);
        let expected = 10_000n;
        for (const r of ok) {
          const receipt = (await provider.getTransactionReceipt(r.body.txHash))!;
          expected += receipt.gasUsed * receipt.gasPrice;
        }
        expect(item.spentTodayWei).toBe(expected.toString());
      }),
    120_000,
  );
});

describe('timeoutSeconds', () => {
  const node = (method: string, params: unknown[] = []) => provider.send(method, params);

  it('not mined in time: the record fails "timed out" and its nonce is taken by a no-op, the next invoke lands', async () => {
    const k = await newKey(api, dev);
    const automine = (await node('anvil_getAutomine')) as boolean;
    const interval = (await node('anvil_getIntervalMining')) as number;
    await node('evm_setIntervalMining', [0]);
    await node('evm_setAutomine', [false]);
    try {
      const start = await provider.getTransactionCount(dev.walletAddress, 'latest');
      const res = await api.post(
        `/api/devportal/contracts/${till.id}/invoke/bump`,
        { timeoutSeconds: 1 },
        { apiKey: k.apiKey },
      );
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'pending', blockNumber: null });
      await new Promise((r) => setTimeout(r, 1200));
      await trackerPass(stack);
      const record = await api.get(`/api/devportal/transactions/${res.body.transactionId}`, { token: dev.token });
      expect(record.body).toMatchObject({ status: 'failed', error: 'timed out' });
      await node('evm_mine');
      expect(await provider.getTransactionReceipt(res.body.txHash)).toBeNull();
      expect(await provider.getTransactionCount(dev.walletAddress, 'latest')).toBe(start + 1);
      // The no-op that took its nonce is the service's, not the key's: the key spent nothing.
      await trackerPass(stack);
      expect((await listItem(k.id)).spentTodayWei).toBe('0');
    } finally {
      await node('evm_setAutomine', [automine]);
      await node('evm_setIntervalMining', [interval]);
    }
    const next = await api.post(`/api/devportal/contracts/${till.id}/invoke/bump`, {}, { apiKey: k.apiKey });
    expect({ status: next.status, outcome: next.body.status }).toEqual({ status: 201, outcome: 'success' });
  }, 60_000);
});

describe('a free-gas network (gas price 0, legacy transactions) behind a Besu front', () => {
  let free: Stack;
  beforeAll(async () => {
    free = await startStack({ TESTNET_GAS_PRICE_WEI: '0' }, { freeGas: true, minGasPrice: 0n });
  }, 60_000);
  afterAll(async () => {
    await free?.stop();
  });

  it('zero caps allow free transactions; a price asked above them is refused, EIP-1559 fields are 400', async () => {
    const freeApi = client(free.url);
    const { dev: owner, contract } = await gatewayUser(freeApi, free.ca, TILL_SOURCE);
    const invoke = (apiKey: string, body: Record<string, unknown>) =>
      freeApi.post(`/api/devportal/contracts/${contract.id}/invoke/bump`, body, { apiKey });
    const k = await newKey(freeApi, owner, { spend: { maxFeePerGasWei: '0', maxValueWeiPerDay: '0' } });
    const ok = await invoke(k.apiKey, {});
    expect({ status: ok.status, outcome: ok.body.status }).toEqual({ status: 201, outcome: 'success' });
    expect((await invoke(k.apiKey, { gasPrice: '0' })).status).toBe(201);
    const priced = await invoke(k.apiKey, { gasPrice: '1' });
    expect(priced.status).toBe(422);
    expect(priced.body.error).toMatchObject({ code: 'SPEND_LIMIT_EXCEEDED', details: { limit: 'maxFeePerGasWei' } });
    const eip1559 = await invoke(k.apiKey, { maxFeePerGas: '0' });
    expect(eip1559.status).toBe(400);
    expect(eip1559.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'maxFeePerGas' } });
    const item = (
      (await freeApi.get(`/api/devportal/developers/${owner.developerId}/api-keys`, { token: owner.token })).body
        .items as any[]
    ).find((i) => i.id === k.id);
    expect(item.spentTodayWei).toBe('0');
  }, 120_000);
});
