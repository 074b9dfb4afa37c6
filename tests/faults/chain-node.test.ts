import { JsonRpcProvider } from 'ethers';
import { client, type ApiResponse, type Client } from '../kit/http';
import type { LoggedIn } from '../kit/login';
import type { ServiceProcess } from '../kit/process';
import { COUNTER_SOURCE } from '../kit/solidity';
import { gatewayUser, logLines, pauseMining, sql, startFaultEnv, waitFor, type FaultEnv } from './fault-env';

// The testnet node goes down under the service, during an invoke and between requests, and comes
// back on the same port with the same chain: clear 502/503 answers while it is away, a transaction
// sent before the outage tracked to completion after it, explorer status degraded then recovered.

let env: FaultEnv;
let service: ServiceProcess;
let api: Client;
let dev: LoggedIn;
let counter: { id: string; address: string };
let apiKey: string;

beforeAll(async () => {
  env = await startFaultEnv();
  service = await env.spawn();
  api = client(service.url);
  ({ dev, contract: counter, apiKey } = await gatewayUser(api, env.ca, COUNTER_SOURCE));
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

const codeOf = (res: ApiResponse): string | undefined =>
  res.body?.error?.code ?? res.body?.errors?.[0]?.extensions?.code;

/** What a client sees while the node is down: a chain error code, 502 or 503, and nothing of the node's address. */
function expectChainError(what: string, res: ApiResponse) {
  const port = String(env.testnetPort);
  const CHAIN_ERRORS = ['502 UPSTREAM_RPC_ERROR', '503 NETWORK_UNAVAILABLE'];
  const answer = `${res.status} ${codeOf(res)}`;
  expect({ what, answer, chainError: CHAIN_ERRORS.includes(answer) }).toEqual({ what, answer, chainError: true });
  const text = JSON.stringify(res.body);
  expect(text).not.toContain(port);
  expect(text).not.toMatch(/https?:\/\//);
}

describe('testnet node outage', () => {
  it('answers clearly while the node is away, then tracks a transaction sent before the outage to completion', async () => {
    const provider = new JsonRpcProvider(env.testnet.url, undefined, {
      staticNetwork: true,
      cacheTimeout: -1,
      pollingInterval: 100,
    });
    await pauseMining(env.testnet.url);
    // During an invoke: its transaction is broadcast, then the node goes away before mining it.
    const invoking = api.post(`/api/devportal/contracts/${counter.id}/invoke/increment`, {}, { apiKey });
    const [sent] = await waitFor('the invoke sent', async () => {
      const rows = await sql(env.databaseUrl, `SELECT tx_hash FROM chain_transactions WHERE kind = 'invoke'`);
      return rows.length > 0 ? rows : undefined;
    });
    await waitFor('the transaction in the pool', async () =>
      (await provider.getTransaction(sent.tx_hash)) ? true : undefined,
    );
    provider.destroy();
    await env.stopTestnet();

    // Readiness is about the database; the body tells that the testnet node is away, without its address.
    const ready = await api.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.networks.testnet).toEqual({
      healthy: false,
      chainId: 17991,
      latencyMs: null,
      error: 'connection refused',
    });
    expect(ready.body.networks.mainnet.healthy).toBe(true);
    expect(JSON.stringify(ready.body)).not.toContain(String(env.testnetPort));
    const status = await waitFor('degraded network status', async () => {
      const res = await api.get('/api/explorer/network-status?network=testnet');
      return res.body.rpc?.healthy === false ? res : undefined;
    });
    expect(status.status).toBe(200);
    expect(status.body.lastBlock.number).toBeGreaterThan(0);
    expect(JSON.stringify(status.body)).not.toContain(String(env.testnetPort));

    const contractsBefore = await sql(env.databaseUrl, `SELECT id FROM contracts`);
    const calls: Array<[string, () => Promise<ApiResponse>]> = [
      ['invoke', () => api.post(`/api/devportal/contracts/${counter.id}/invoke/increment`, {}, { apiKey })],
      [
        'invoke with gasLimit',
        () => api.post(`/api/devportal/contracts/${counter.id}/invoke/increment`, { gasLimit: '100000' }, { apiKey }),
      ],
      ['query', () => api.post(`/api/devportal/contracts/${counter.id}/query/count`, {}, { apiKey })],
      ['balance', () => api.get(`/api/devportal/wallets/${dev.walletAddress}/balance?network=testnet`)],
      ['drip', () => api.post('/api/devportal/faucet/drip', {}, { token: dev.token })],
      ['deploy', () => api.post('/api/devportal/contracts/deploy', { source: COUNTER_SOURCE }, { token: dev.token })],
      ['tx', () => api.get(`/api/explorer/tx/${sent.tx_hash}?network=testnet`)],
      ['address', () => api.get(`/api/explorer/address/${dev.walletAddress}?network=testnet&scan=10`)],
    ];
    for (const [what, fn] of calls) {
      const started = Date.now();
      expectChainError(what, await fn());
      expect(Date.now() - started).toBeLessThan(10_000);
    }
    const gql = await api.graphql(
      `mutation { invokeContract(id: "${counter.id}", method: "increment") { txHash status } }`,
      {},
      { apiKey },
    );
    expect(gql.status).toBe(200);
    expect(['UPSTREAM_RPC_ERROR', 'NETWORK_UNAVAILABLE']).toContain(gql.body.errors[0].extensions.code);
    expect(JSON.stringify(gql.body)).not.toContain(String(env.testnetPort));
    // Nothing half-made: no contract record for the refused deployment, no transaction for the refused invokes.
    expect(await sql(env.databaseUrl, `SELECT id FROM contracts`)).toEqual(contractsBefore);
    expect(await sql(env.databaseUrl, `SELECT tx_hash FROM chain_transactions WHERE kind = 'invoke'`)).toEqual([sent]);
    // What the database alone knows is still served: the pending transaction in the wallet history.
    const history = await api.get(`/api/devportal/developers/${dev.developerId}/wallet-history?network=testnet`, {
      token: dev.token,
    });
    expect(history.status).toBe(200);
    expect(history.body.items[0]).toMatchObject({ txHash: sent.tx_hash, status: 'pending' });
    expect(history.body.items.slice(1).map((i: { status: string }) => i.status)).not.toContain('pending');
    // Pages run on from the pending transactions into the mined ones.
    const first = await api.get(`/api/devportal/developers/${dev.developerId}/wallet-history?network=testnet&limit=1`, {
      token: dev.token,
    });
    const next = await api.get(
      `/api/devportal/developers/${dev.developerId}/wallet-history?network=testnet&limit=1&cursor=${first.body.nextCursor}`,
      { token: dev.token },
    );
    expect([first.body.items[0].txHash, next.body.items[0].txHash]).toEqual(
      history.body.items.slice(0, 2).map((i: { txHash: string }) => i.txHash),
    );

    // Back on the same port with the same chain, without the lost pool: the tracker sends the
    // transaction again, and the invoke that waited all along is answered.
    await env.startTestnet();
    const answered = await invoking;
    expect(answered.status).toBe(201);
    expect(answered.body).toMatchObject({ txHash: sent.tx_hash, status: 'success' });
    const [row] = await sql(env.databaseUrl, `SELECT status, block_number FROM chain_transactions WHERE tx_hash = $1`, [
      sent.tx_hash,
    ]);
    expect(row.status).toBe('success');
    expect(Number(row.block_number)).toBe(answered.body.blockNumber);
    expect(
      logLines(service.output()).some(
        (l) => l.msg === 're-broadcast a pending transaction' && l.txHash === sent.tx_hash,
      ),
    ).toBe(true);

    await waitFor('recovered network status', async () => {
      const res = await api.get('/api/explorer/network-status?network=testnet');
      return res.body.rpc?.healthy === true ? true : undefined;
    });
    expect((await api.get('/readyz')).body.networks.testnet.healthy).toBe(true);
    const again = await api.post(`/api/devportal/contracts/${counter.id}/invoke/increment`, {}, { apiKey });
    expect(again.body.status).toBe('success');
    expect((await api.post(`/api/devportal/contracts/${counter.id}/query/count`, {}, { apiKey })).body).toEqual({
      result: '2',
    });
    // The drip refused during the outage was not counted.
    const drip = await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
    expect(drip.status).toBe(201);
    expect(drip.body.dripsUsedToday).toBe(2);
  }, 90_000);
});
