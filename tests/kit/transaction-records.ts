// Responses are asserted field by field in tests; `any` for a record's body keeps them short.
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { BesuFront } from './besu-node';
import { gatewayUser, type DeployedContract, type IssuedKey } from './flows';
import { client, type ApiResponse, type CallOptions, type Client } from './http';
import type { LoggedIn } from './login';
import { ONCE_SOURCE } from './solidity';
import { BESU_MIN_GAS_PRICE, startStack, trackerPass, type Stack } from './stack';

// Transaction records (docs/api.md, "Transactions"): reading one until it reaches a status, and the
// calls of the tests that drive a gateway user's invokes through them.

/** Accepted for later: the answer is 202 with the record queued (docs/api.md, "Gateway"). */
export const RESPOND_ASYNC = { prefer: 'respond-async' };

/** Whether a record has reached its end: neither queued nor pending. */
export const hasEnded = (record: { status: string }): boolean => !['queued', 'pending'].includes(record.status);

/**
 * Reads GET /transactions/{id} until `until` holds of the record (by default, until it has ended),
 * with a tracker pass between looks when `track`; fails on any answer but 200, or after 90 s.
 */
export async function recordWhen(
  stack: Stack,
  api: Client,
  id: string,
  opts: CallOptions,
  until: (record: any) => boolean = hasEnded,
  track = false,
): Promise<any> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const res = await api.get(`/api/devportal/transactions/${encodeURIComponent(id)}`, opts);
    if (res.status !== 200) throw new Error(`transaction ${id}: ${res.status} ${JSON.stringify(res.body)}`);
    if (until(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`transaction ${id} still ${res.body.status}`);
    if (track) await trackerPass(stack);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A gateway user's stack, contract and key, as a test file holds them once its setup has run. */
export interface RecordsUser {
  stack: Stack;
  api: Client;
  contract: { id: string };
  key: { apiKey: string };
}

/**
 * The calls of a test file that invokes `user().contract` with `user().key` and follows the records
 * (`user` is read at each call: the file's setup fills it in).
 */
export function recordCalls(user: () => RecordsUser) {
  return {
    /** Invokes `method` with the key. */
    invoke: (method: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
      user().api.post(`/api/devportal/contracts/${user().contract.id}/invoke/${method}`, body, {
        apiKey: user().key.apiKey,
        headers,
      }),
    /** GET /transactions/{id}, with the key unless `opts` says otherwise. */
    getTx: (id: string, opts: CallOptions = { apiKey: user().key.apiKey }): Promise<ApiResponse> =>
      user().api.get(`/api/devportal/transactions/${encodeURIComponent(id)}`, opts),
    /** The record once it has left queued and pending, read with the key unless `opts` says otherwise. */
    settled: (id: string, opts: CallOptions = { apiKey: user().key.apiKey }) =>
      recordWhen(user().stack, user().api, id, opts),
    /** The Besu-faithful front before the testnet node (the stack must run behind the fronts). */
    front: (): BesuFront => user().stack.besu!.testnet.front,
  };
}

/**
 * A stack behind the Besu-faithful fronts at their gas price floor (a test can make the node refuse a
 * send) and a gateway user of ONCE_SOURCE: coins (`drip`: the drip's answer), the contract, a key.
 * `onStarted` runs before the user's first request (to install a status sink, say).
 */
export async function startRecordsUser(
  onStarted: (stack: Stack) => void = () => undefined,
): Promise<{ stack: Stack; api: Client; dev: LoggedIn; contract: DeployedContract; key: IssuedKey; drip: any }> {
  const stack = await startStack({}, { minGasPrice: BESU_MIN_GAS_PRICE });
  try {
    onStarted(stack);
    const api = client(stack.url);
    const { dev, contract, key, drip } = await gatewayUser(api, stack.ca, ONCE_SOURCE);
    return { stack, api, dev, contract, key, drip };
  } catch (err) {
    await stack.stop();
    throw err;
  }
}
