import { JsonRpcProvider, FetchRequest, Wallet } from 'ethers';
import { ANVIL_KEYS } from './kit/chain';
import { BESU_ERRORS, startBesuChain, type BesuChain } from './kit/besu-node';

/** The test double itself answers as Besu does (its top comment cites the sources). */
let chain: BesuChain;
const TOKEN = 'test-token';

function provider(withToken = true): JsonRpcProvider {
  const req = new FetchRequest(chain.front.url);
  if (withToken) req.setHeader('Authorization', `Bearer ${TOKEN}`);
  return new JsonRpcProvider(req, 17991, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 100 });
}

async function rawSend(body: object, token?: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(chain.front.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

async function anvil(method: string, params: unknown[]): Promise<void> {
  const res = await fetch(chain.anvilUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const json = (await res.json()) as { error?: unknown };
  if (json.error) throw new Error(`${method}: ${JSON.stringify(json.error)}`);
}

beforeAll(async () => {
  chain = await startBesuChain(17991, {
    token: TOKEN,
    minGasPrice: 1000n,
    allowlist: [new Wallet(ANVIL_KEYS[0]!).address],
    validators: ['0x0000000000000000000000000000000000000001'],
    freeGas: true,
  });
});
afterAll(() => chain?.stop());

describe('Besu-faithful front', () => {
  it('answers 401 / -40100 without the bearer token', async () => {
    const res = await rawSend({ jsonrpc: '2.0', id: 7, method: 'eth_blockNumber', params: [] });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 7, error: BESU_ERRORS.unauthorized });
  });

  it('answers qbft_getValidatorsByBlockNumber', async () => {
    const res = await rawSend(
      { jsonrpc: '2.0', id: 1, method: 'qbft_getValidatorsByBlockNumber', params: ['latest'] },
      TOKEN,
    );
    expect(res.json).toMatchObject({ result: ['0x0000000000000000000000000000000000000001'] });
  });

  it('refuses a price under the minimum, a sender off the allowlist and a nonce too far ahead', async () => {
    const p = provider();
    const allowed = new Wallet(ANVIL_KEYS[0]!, p);
    const other = new Wallet(ANVIL_KEYS[1]!, p);
    const base = { to: other.address, value: 1n, gasLimit: 21000n, chainId: 17991n, type: 0 };
    const send = async (w: Wallet, tx: object) =>
      rawSend(
        { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: [await w.signTransaction(tx)] },
        TOKEN,
      );
    const nonce = await p.getTransactionCount(allowed.address, 'latest');
    expect((await send(allowed, { ...base, nonce, gasPrice: 999n })).json).toMatchObject({
      error: BESU_ERRORS.gasPriceTooLow,
    });
    expect((await send(other, { ...base, nonce: 0, gasPrice: 1000n })).json).toMatchObject({
      error: BESU_ERRORS.senderNotAuthorized,
    });
    expect((await send(allowed, { ...base, nonce: nonce + 200, gasPrice: 1000n })).json).toMatchObject({
      error: BESU_ERRORS.nonceTooDistant,
    });
    expect((await send(allowed, { ...base, nonce, gasPrice: 1000n, gasLimit: 20000n })).json).toMatchObject({
      error: BESU_ERRORS.intrinsicGas,
    });
    // Mining paused, so the accepted transaction is still pending when it is sent again (Besu answers
    // "Known transaction" only while it is in the pool; once mined, its nonce is too low).
    await anvil('evm_setIntervalMining', [0]);
    try {
      const ok = await send(allowed, { ...base, nonce, gasPrice: 1000n });
      expect(ok.json).toMatchObject({ result: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      expect((await send(allowed, { ...base, nonce, gasPrice: 1000n })).json).toMatchObject({
        error: BESU_ERRORS.knownTransaction,
      });
      await anvil('evm_mine', []);
      expect((await send(allowed, { ...base, nonce, gasPrice: 1000n })).json).toMatchObject({
        error: BESU_ERRORS.nonceTooLow,
      });
    } finally {
      await anvil('evm_setIntervalMining', [1]);
    }
  });

  it('runs a free-gas chain: legacy transactions at gas price 0, no base fee', async () => {
    const p = provider();
    const block = await p.getBlock('latest');
    expect(block?.baseFeePerGas ?? null).toBeNull();
  });
});
