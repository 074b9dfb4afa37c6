import type { DevCa } from '../../src/modules/accounts/eds/dev-ca';
import { providerOf } from './chain';
import type { Stack } from './stack';
import type { ApiResponse, Client } from './http';
import { login, type LoggedIn } from './login';

export interface DeployedContract {
  id: string;
  address: string;
  abi: unknown[];
}

export interface IssuedKey {
  id: string;
  apiKey: string;
  prefix: string;
  scopes: string[];
}

/** Deploys on testnet from the developer's wallet and registers the contract in the gateway. */
export async function deployRegistered(
  api: Client,
  owner: LoggedIn,
  source: string,
  constructorArgs: unknown[] = [],
): Promise<DeployedContract> {
  const deployed = await api.post(
    '/api/devportal/contracts/deploy',
    { source, constructorArgs },
    { token: owner.token },
  );
  if (deployed.body?.status !== 'deployed') {
    throw new Error(`deploy failed: ${deployed.status} ${JSON.stringify(deployed.body)}`);
  }
  const reg = await api.post(
    `/api/devportal/contracts/${deployed.body.id}/register-middleware`,
    {},
    { token: owner.token },
  );
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  return deployed.body as DeployedContract;
}

/** Issues an API key of the developer. */
export async function newKey(api: Client, owner: LoggedIn, body: Record<string, unknown> = {}): Promise<IssuedKey> {
  const res = await api.post(`/api/devportal/developers/${owner.developerId}/api-keys`, body, { token: owner.token });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as IssuedKey;
}

/** A developer with test coins (`drip`: the drip's answer), a deployed and registered contract, and an API key for it. */
export async function gatewayUser(
  api: Client,
  ca: DevCa,
  source: string,
): Promise<{ dev: LoggedIn; contract: DeployedContract; key: IssuedKey; apiKey: string; drip: ApiResponse['body'] }> {
  const dev = await login(api, ca);
  const drip = await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
  if (drip.status !== 201) throw new Error(`drip failed: ${drip.status} ${JSON.stringify(drip.body)}`);
  const contract = await deployRegistered(api, dev, source);
  const key = await newKey(api, dev);
  return { dev, contract, key, apiKey: key.apiKey, drip: drip.body };
}

/** What `burstsUntilLimited` saw. */
export interface Bursts<T> {
  results: T[];
  /** A burst was answered within one second: more than the per-second limit was charged in one window. */
  fastBurst: boolean;
  /** One-second windows the bursts touched: at most the limit passes per window. */
  windows: number;
}

/**
 * Bursts of `size` concurrent requests, up to five, until one is answered 429. A per-second limit of
 * L (L < size / 2) must refuse one of a burst answered within one second (two windows at most, so one
 * holds more than L of it); a machine too loaded to serve L requests a second never exceeds the limit,
 * so a test asserts the refusal only when `fastBurst`, and at most L passing per window always.
 */
export async function burstsUntilLimited<T extends { status: number }>(
  send: () => Promise<T>,
  size = 250,
): Promise<Bursts<T>> {
  const started = Date.now();
  const results: T[] = [];
  let fastBurst = false;
  for (let i = 0; i < 5 && !results.some((r) => r.status === 429); i++) {
    const burstStarted = Date.now();
    results.push(...(await Promise.all(Array.from({ length: size }, send))));
    if (Date.now() - burstStarted < 1000) fastBurst = true;
  }
  return { results, fastBurst, windows: Math.ceil((Date.now() - started) / 1000) + 1 };
}

/**
 * Accepts `count` invokes of `method` at once (`Prefer: respond-async`) and holds the testnet's
 * mining until all of them are in the node's pool, so that they are simulated and sent before any
 * is mined (of two calls of a one-time function, the second then reverts when mined). Answers as sent.
 */
export async function invokesSentTogether(
  stack: Stack,
  api: Client,
  wallet: string,
  contractId: string,
  method: string,
  apiKey: string,
  count = 2,
): Promise<ApiResponse[]> {
  const provider = providerOf(stack, 'testnet');
  const nonce = await provider.getTransactionCount(wallet, 'pending');
  await provider.send('evm_setIntervalMining', [0]);
  try {
    const answers = await Promise.all(
      Array.from({ length: count }, () =>
        api.post(
          `/api/devportal/contracts/${contractId}/invoke/${method}`,
          {},
          { apiKey, headers: { prefer: 'respond-async' } },
        ),
      ),
    );
    const until = Date.now() + 30_000;
    while ((await provider.getTransactionCount(wallet, 'pending')) < nonce + count) {
      if (Date.now() > until) throw new Error(`the ${count} transactions did not reach the pool`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return answers;
  } finally {
    await provider.send('evm_setIntervalMining', [1]);
    provider.destroy();
  }
}
