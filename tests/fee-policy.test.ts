import { providerOf } from './kit/chain';
import { client } from './kit/http';
import { gatewayUser } from './kit/flows';
import { login } from './kit/login';
import { COUNTER_SOURCE } from './kit/solidity';
import { startStack, sqlRows, type Stack } from './kit/stack';

describe('a free-gas network (berlin, gas price 0, legacy transactions only) behind a Besu front', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ TESTNET_GAS_PRICE_WEI: '0' }, { freeGas: true, minGasPrice: 0n });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('drips, deploys and invokes with legacy transactions at gas price 0', async () => {
    const api = client(stack.url);
    const { dev, contract, apiKey } = await gatewayUser(api, stack.ca, COUNTER_SOURCE);
    const res = await api.post(`/api/devportal/contracts/${contract.id}/invoke/increment`, {}, { apiKey });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('success');
    const provider = providerOf(stack, 'testnet');
    expect((await provider.getBlock('latest'))?.baseFeePerGas ?? null).toBeNull();
    const hashes = await sqlRows<{ tx_hash: string; kind: string }>(
      stack,
      `SELECT tx_hash, kind FROM chain_transactions WHERE developer_id = $1 AND status = 'success'`,
      [dev.developerId],
    );
    expect(hashes.map((h) => h.kind).sort()).toEqual(['deploy', 'faucet', 'invoke']);
    for (const { tx_hash } of hashes) {
      const tx = await provider.getTransaction(tx_hash);
      expect(tx).toMatchObject({ type: 0, gasPrice: 0n });
    }
  }, 60_000);
});

describe('a fee cap below what the network asks', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ TESTNET_MAX_FEE_PER_GAS_WEI: '1' });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses the send with 503 NETWORK_UNAVAILABLE and a reason, nothing sent, nothing counted', async () => {
    const api = client(stack.url);
    const dev = await login(api, stack.ca);
    const res = await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({
      code: 'NETWORK_UNAVAILABLE',
      details: { network: 'testnet', reason: 'fee above the configured maximum', maxFeePerGasWei: '1' },
    });
    expect(await sqlRows(stack, 'SELECT 1 FROM chain_transactions')).toHaveLength(0);
    expect(await sqlRows(stack, 'SELECT 1 FROM faucet_drips')).toHaveLength(0);
  });
});
