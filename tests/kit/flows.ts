import type { DevCa } from '../../src/modules/accounts/eds/dev-ca';
import type { Client } from './http';
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

/** A developer with test coins, a deployed and registered contract, and an API key for it. */
export async function gatewayUser(
  api: Client,
  ca: DevCa,
  source: string,
): Promise<{ dev: LoggedIn; contract: DeployedContract; apiKey: string }> {
  const dev = await login(api, ca);
  const drip = await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
  if (drip.status !== 201) throw new Error(`drip failed: ${drip.status} ${JSON.stringify(drip.body)}`);
  const contract = await deployRegistered(api, dev, source);
  return { dev, contract, apiKey: (await newKey(api, dev)).apiKey };
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
