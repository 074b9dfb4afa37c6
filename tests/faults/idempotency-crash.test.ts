import { JsonRpcProvider } from 'ethers';
import { client } from '../kit/http';
import type { LoggedIn } from '../kit/login';
import type { ServiceProcess } from '../kit/process';
import { COUNTER_SOURCE } from '../kit/solidity';
import { gatewayUser, pauseMining, resumeMining, rpc, sql, startFaultEnv, waitFor, type FaultEnv } from './fault-env';

// A service process is SIGKILLed after it signed, recorded and broadcast an invoke sent with an
// Idempotency-Key, but before it answered. After a restart on the same database the retry must
// return that transaction, and the wallet must have sent exactly one.

let env: FaultEnv;
let service: ServiceProcess;
let dev: LoggedIn;
let counter: { id: string; address: string };
let apiKey: string;
let provider: JsonRpcProvider;

beforeAll(async () => {
  env = await startFaultEnv();
  provider = new JsonRpcProvider(env.testnet.url, undefined, {
    staticNetwork: true,
    cacheTimeout: -1,
    pollingInterval: 100,
  });
  service = await env.spawn();
  const api = client(service.url);
  ({ dev, contract: counter, apiKey } = await gatewayUser(api, env.ca, COUNTER_SOURCE));
}, 60_000);

afterAll(async () => {
  provider?.destroy();
  await env?.stop();
});

const invoke = (url: string, key: string, body: Record<string, unknown> = {}) =>
  client(url).post(`/api/devportal/contracts/${counter.id}/invoke/increment`, body, {
    apiKey,
    headers: { 'Idempotency-Key': key },
  });

/** The connection was cut (the process died) rather than answered. */
const answerOf = (pending: Promise<{ status: number }>) =>
  pending.then(
    (res) => ({ answered: res.status }),
    () => ({ cut: true }),
  );

describe('crash between signing and answering an idempotent invoke', () => {
  it('returns the original transaction after a restart and sends nothing twice', async () => {
    const nonceBefore = await provider.getTransactionCount(dev.walletAddress, 'latest');
    await pauseMining(env.testnet.url);

    // The first attempt: its transaction is recorded and broadcast, its receipt can never come.
    const first = answerOf(invoke(service.url, 'crash-1'));
    const recorded = await waitFor('the invoke recorded and linked to its key', async () => {
      const [row] = await sql(
        env.databaseUrl,
        `SELECT k.state, k.tx_hash, t.nonce FROM idempotency_keys k JOIN chain_transactions t ON t.tx_hash = k.tx_hash
          WHERE k.developer_id = $1 AND k.key = 'crash-1'`,
        [dev.developerId],
      );
      return row;
    });
    expect(recorded.state).toBe('sent');
    const txHash: string = recorded.tx_hash;
    expect(Number(recorded.nonce)).toBe(nonceBefore);
    await waitFor('the transaction in the node’s pool', async () =>
      (await provider.getTransaction(txHash)) ? true : undefined,
    );

    expect(await service.stop('SIGKILL')).toBeNull();
    expect(await first).toEqual({ cut: true });

    await rpc(env.testnet.url, 'evm_mine');
    const receipt = await provider.getTransactionReceipt(txHash);
    expect(receipt?.status).toBe(1);
    await resumeMining(env.testnet.url);

    service = await env.spawn();
    const retry = await invoke(service.url, 'crash-1');
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual({
      // The record the crashed attempt created, found again by its transaction.
      transactionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      txHash,
      blockNumber: receipt!.blockNumber,
      gasUsed: receipt!.gasUsed.toString(),
      status: 'success',
    });

    // Exactly one transaction left the wallet, and the counter moved once.
    expect(await provider.getTransactionCount(dev.walletAddress, 'latest')).toBe(nonceBefore + 1);
    const sent = await sql(
      env.databaseUrl,
      `SELECT tx_hash, status FROM chain_transactions WHERE from_address = $1 AND kind = 'invoke'`,
      [dev.walletAddress],
    );
    expect(sent).toEqual([{ tx_hash: txHash, status: 'success' }]);
    const count = await client(service.url).post(`/api/devportal/contracts/${counter.id}/query/count`, {}, { apiKey });
    expect(count.body).toEqual({ result: '1' });

    // The outcome is now stored: a second retry answers the same, a different body is refused.
    const again = await invoke(service.url, 'crash-1');
    expect(again.body).toEqual(retry.body);
    const [stored] = await sql(
      env.databaseUrl,
      `SELECT state FROM idempotency_keys WHERE developer_id = $1 AND key = 'crash-1'`,
      [dev.developerId],
    );
    expect(stored.state).toBe('done');
    const reused = await invoke(service.url, 'crash-1', { gasLimit: '200000' });
    expect(reused.status).toBe(422);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await provider.getTransactionCount(dev.walletAddress, 'latest')).toBe(nonceBefore + 1);
  }, 60_000);

  it('resumes a retry that arrives before the transaction is mined, without sending again', async () => {
    const nonceBefore = await provider.getTransactionCount(dev.walletAddress, 'latest');
    await pauseMining(env.testnet.url);
    const first = answerOf(invoke(service.url, 'crash-2'));
    const [row] = await waitFor('the invoke recorded', async () => {
      const rows = await sql(
        env.databaseUrl,
        `SELECT tx_hash FROM idempotency_keys WHERE developer_id = $1 AND key = 'crash-2' AND state = 'sent'`,
        [dev.developerId],
      );
      return rows.length > 0 ? rows : undefined;
    });
    await waitFor('the transaction in the pool', async () =>
      (await provider.getTransaction(row.tx_hash)) ? true : undefined,
    );
    await service.stop('SIGKILL');
    expect(await first).toEqual({ cut: true });

    service = await env.spawn();
    // The retry waits for the first transaction's receipt rather than signing a new one.
    const retry = invoke(service.url, 'crash-2');
    await new Promise((r) => setTimeout(r, 1500));
    await resumeMining(env.testnet.url);
    const res = await retry;
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ txHash: row.tx_hash, status: 'success' });
    expect(await provider.getTransactionCount(dev.walletAddress, 'latest')).toBe(nonceBefore + 1);
  }, 60_000);
});
