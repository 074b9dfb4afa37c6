/**
 * Gateway reads the read cache holds, answered in the turn their request was read (docs/api.md,
 * "Gateway": hits answered at once), on the real service with API_KEY_RATE_LIMIT=0 and a real
 * anvil: the same bytes as the full path, every key check and count as before.
 */
import { Wallet } from 'ethers';
import { burstsUntilLimited, deployRegistered, newKey, type IssuedKey } from './kit/flows';
import { client, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { COUNTER_SOURCE, TOKEN_SOURCE } from './kit/solidity';
import { sqlRows, startStack, type Stack } from './kit/stack';
import { onOneUtcDay } from './kit/utc-day';

let stack: Stack;
let api: Client;
let dev: LoggedIn;
let token: { id: string; address: string };
let counter: { id: string };
let key: IssuedKey;

const path = (contractId: string, method: string) => `/api/devportal/contracts/${contractId}/query/${method}`;
/** A query as the wire carries it: status, the headers a client reads, and the body's exact text. */
async function wire(contractId: string, method: string, args: unknown[], apiKey: string) {
  const res = await fetch(`${stack.url}${path(contractId, method)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ args }),
  });
  return {
    status: res.status,
    block: res.headers.get('x-block-number'),
    type: res.headers.get('content-type'),
    length: res.headers.get('content-length'),
    text: await res.text(),
  };
}
const code = (w: { text: string }) => (JSON.parse(w.text) as { error?: { code: string } }).error?.code;
async function immediate(): Promise<number> {
  const metrics = await (await fetch(`${stack.url}/metrics`)).text();
  return Number(/^gateway_read_cache_immediate_total (\d+)/m.exec(metrics)?.[1]);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Queries until the answer names a block (the watcher knows the head), so that repeats are hits. */
async function warm(contractId: string, method: string, args: unknown[]) {
  for (let i = 0; i < 100; i++) {
    const w = await wire(contractId, method, args, key.apiKey);
    if (w.status === 201 && w.block !== null) return w;
    await sleep(50);
  }
  throw new Error('the head never became known');
}

beforeAll(async () => {
  stack = await startStack({ API_KEY_RATE_LIMIT: '0' });
  api = client(stack.url);
  dev = await login(api, stack.ca);
  expect((await api.post('/api/devportal/faucet/drip', {}, { token: dev.token })).status).toBe(201);
  token = await deployRegistered(api, dev, TOKEN_SOURCE, ['1000000']);
  counter = await deployRegistered(api, dev, COUNTER_SOURCE);
  key = await newKey(api, dev);
}, 180_000);
afterAll(async () => {
  await stack?.stop();
});

describe('reads answered at once', () => {
  it('answers a repeat with the bytes the full path answered, and counts it as immediate', async () => {
    const holder = Wallet.createRandom().address;
    // A key's first request takes the full path (the key is checked in the database); its next, at
    // the same block, the same answer at once. A block mined in between starts the pair again.
    for (let attempt = 0; attempt < 10; attempt++) {
      await warm(token.id, 'balanceOf', [holder]);
      const fresh = await newKey(api, dev);
      const before = await immediate();
      const full = await wire(token.id, 'balanceOf', [holder], fresh.apiKey);
      const afterFull = await immediate();
      const atOnce = await wire(token.id, 'balanceOf', [holder], fresh.apiKey);
      if (full.block !== atOnce.block) continue;
      expect(afterFull).toBe(before);
      expect(await immediate()).toBe(afterFull + 1);
      expect(atOnce).toEqual(full);
      expect(full).toMatchObject({ status: 201, type: 'application/json; charset=utf-8', text: '{"result":"0"}' });
      return;
    }
    throw new Error('no two reads at one block in 10 attempts');
  });

  it('holds every key check on a held answer: method, contract, scope, owner, revocation', async () => {
    await warm(token.id, 'totalSupply', []);
    const keys = {
      methods: await newKey(api, dev, { allowedMethods: ['balanceOf'] }),
      contracts: await newKey(api, dev, { contractIds: [counter.id] }),
      writeOnly: await newKey(api, dev, { scopes: ['write'] }),
      stranger: await newKey(api, await login(api, stack.ca)),
    };
    const expected = {
      methods: 'KEY_POLICY_DENIED',
      contracts: 'KEY_NOT_FOR_CONTRACT',
      writeOnly: 'INSUFFICIENT_SCOPE',
      stranger: 'FORBIDDEN',
    };
    const before = await immediate();
    // Twice each: the second time the key is known to this instance.
    for (let round = 0; round < 2; round++) {
      for (const [name, k] of Object.entries(keys)) {
        const w = await wire(token.id, 'totalSupply', [], k.apiKey);
        expect({ name, status: w.status, code: code(w), block: w.block }).toEqual({
          name,
          status: 403,
          code: expected[name as keyof typeof expected],
          block: null,
        });
      }
    }
    expect(await immediate()).toBe(before);

    const revoked = await newKey(api, dev);
    expect((await wire(token.id, 'totalSupply', [], revoked.apiKey)).status).toBe(201);
    expect((await wire(token.id, 'totalSupply', [], revoked.apiKey)).status).toBe(201);
    expect((await api.del(`/api/devportal/api-keys/${revoked.id}`, { token: dev.token })).status).toBe(200);
    const refused = await wire(token.id, 'totalSupply', [], revoked.apiKey);
    expect({ status: refused.status, code: code(refused) }).toEqual({ status: 401, code: 'INVALID_API_KEY' });
  });

  it('counts a key with a daily quota in the database, hit or not, and refuses past it', () =>
    onOneUtcDay(async () => {
      await warm(token.id, 'totalSupply', []);
      const quota = await newKey(api, dev, { dailyQuota: 3 });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await wire(token.id, 'totalSupply', [], quota.apiKey)).status);
      expect(statuses).toEqual([201, 201, 201, 429, 429]);
      const [row] = await sqlRows<{ requests: number }>(
        stack,
        'SELECT requests FROM api_key_daily_requests WHERE key_id = $1',
        [quota.id],
      );
      expect(Number(row!.requests)).toBe(3);
    }));

  it('refuses what the full path refuses: control characters, a state-changing method, bad arguments', async () => {
    await warm(counter.id, 'count', []);
    await wire(counter.id, 'count', [], key.apiKey);
    const control = await wire(counter.id, 'count', ['a\u0000b'], key.apiKey);
    expect({ status: control.status, code: code(control) }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
    for (let i = 0; i < 2; i++) {
      const invoke = await wire(counter.id, 'increment', [], key.apiKey);
      expect({ status: invoke.status, code: code(invoke) }).toEqual({ status: 400, code: 'VALIDATION_FAILED' });
      const badArgs = await wire(token.id, 'balanceOf', ['0x1234'], key.apiKey);
      expect({ status: badArgs.status, block: badArgs.block }).toEqual({ status: 400, block: null });
    }
    // The method by its signature, a percent-encoded name: the same answer.
    const byName = await warm(token.id, 'totalSupply', []);
    const bySignature = await wire(token.id, 'totalSupply()', [], key.apiKey);
    const encoded = await wire(token.id, 'totalSupply%28%29', [], key.apiKey);
    for (const w of [bySignature, encoded]) expect(w.text).toBe(byName.text);
  });

  it('charges a key with a per-second budget once per request, held answer or not, and records its refusals', async () => {
    await warm(token.id, 'totalSupply', []);
    const k = await newKey(api, dev, { rateLimitPerSecond: 5 });
    expect((await wire(token.id, 'totalSupply', [], k.apiKey)).status).toBe(201);
    await sleep(1100);
    const { results, fastBurst, windows } = await burstsUntilLimited(
      () => wire(token.id, 'totalSupply', [], k.apiKey),
      20,
    );
    const passed = results.filter((r) => r.status === 201);
    const limited = results.filter((r) => r.status === 429);
    expect(passed.length + limited.length).toBe(results.length);
    // At most 5 a second pass: each request is charged once, whichever path answers it.
    expect(passed.length).toBeLessThanOrEqual(5 * windows);
    if (fastBurst) expect(limited.length).toBeGreaterThan(0);
    for (const r of limited) expect({ code: code(r), block: r.block }).toEqual({ code: 'RATE_LIMITED', block: null });
    for (const r of passed) expect(r.text).toBe('{"result":"1000000"}');
    // Every answer is recorded with its status: the refusals too, before the contract is known.
    let rows: Array<{ status: number; n: string; contract_id: string | null }> = [];
    for (let i = 0; i < 40; i++) {
      rows = await sqlRows(
        stack,
        `SELECT http_status AS status, count(*) AS n, contract_id FROM gateway_calls
          WHERE api_key_id = $1 GROUP BY http_status, contract_id ORDER BY http_status`,
        [k.id],
      );
      if (rows.reduce((n, r) => n + Number(r.n), 0) === results.length + 1) break;
      await sleep(100);
    }
    expect(rows.map((r) => ({ status: r.status, n: Number(r.n), contractId: r.contract_id }))).toEqual([
      { status: 201, n: passed.length + 1, contractId: token.id },
      ...(limited.length > 0 ? [{ status: 429, n: limited.length, contractId: null }] : []),
    ]);
    // The budgeted key's read is answered at once when the cache holds it. A burst sent just after a
    // new block all takes the full path, and a block may land between a warm-up and the read: then
    // the read takes the full path too, and it is tried again in a fresh one-second window.
    let answeredAtOnce = false;
    for (let i = 0; i < 5 && !answeredAtOnce; i++) {
      await sleep(1100);
      await warm(token.id, 'totalSupply', []);
      const at = await immediate();
      expect((await wire(token.id, 'totalSupply', [], k.apiKey)).status).toBe(201);
      answeredAtOnce = (await immediate()) > at;
    }
    expect(answeredAtOnce).toBe(true);
  });

  it('records every read answered at once for analytics, with its contract and method', async () => {
    await warm(token.id, 'totalSupply', []);
    const k = await newKey(api, dev);
    expect((await wire(token.id, 'totalSupply', [], k.apiKey)).status).toBe(201);
    const before = await immediate();
    for (let i = 0; i < 20; i++) expect((await wire(token.id, 'totalSupply', [], k.apiKey)).status).toBe(201);
    expect(await immediate()).toBeGreaterThanOrEqual(before + 15);
    let rows: Array<{ n: string; contract_id: string; method: string }> = [];
    for (let i = 0; i < 40; i++) {
      rows = await sqlRows(
        stack,
        `SELECT count(*) AS n, contract_id, method FROM gateway_calls
          WHERE api_key_id = $1 AND kind = 'query' AND http_status = 201 GROUP BY contract_id, method`,
        [k.id],
      );
      if (Number(rows[0]?.n) === 21) break;
      await sleep(100);
    }
    expect(rows.map((r) => ({ ...r, n: Number(r.n) }))).toEqual([
      { n: 21, contract_id: token.id, method: 'totalSupply()' },
    ]);
  });
});
