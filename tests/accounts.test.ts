import { writeFileSync } from 'node:fs';
import path from 'node:path';
import jwt from 'jsonwebtoken';
import { createDevCa, issueCertificate, signNonce, signNonceCms } from '../src/modules/accounts/eds/dev-ca';
import { openPrivateKey } from '../src/modules/wallets/wallet-key-cipher';
import { client, type Client } from './kit/http';
import { issueDeveloperCertificate, login } from './kit/login';
import { OpensslPki, derToPem, type Authority, type Credential } from './kit/openssl-pki';
import { startStack, TEST_JWT_SECRET, TEST_WALLET_KEY, type Stack, sqlRows } from './kit/stack';

let stack: Stack;
let api: Client;

beforeAll(async () => {
  stack = await startStack();
  api = client(stack.url);
});
afterAll(async () => {
  await stack?.stop();
});

const challenge = async () => (await api.post('/api/devportal/auth/eds/challenge')).body;

const query = <T>(text: string, params: unknown[] = []) => sqlRows<T>(stack, text, params);

describe('EDS challenge', () => {
  it('returns a random nonce valid for 5 minutes', async () => {
    const res = await api.post('/api/devportal/auth/eds/challenge');
    expect(res.status).toBe(201);
    expect(res.body.challengeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.nonce.length).toBeGreaterThanOrEqual(32);
    const ttl = Date.parse(res.body.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(4 * 60 * 1000);
    expect(ttl).toBeLessThanOrEqual(5 * 60 * 1000);
    expect((await challenge()).nonce).not.toBe(res.body.nonce);
  });
});

describe('EDS login', () => {
  it.each([
    ['RSA PKCS#1 v1.5', 'RSA' as const, undefined],
    ['RSA-PSS', 'RSA-PSS' as const, undefined],
    ['ECDSA P-256, DER', 'ECDSA-P256' as const, 'der' as const],
    ['ECDSA P-256, IEEE P1363', 'ECDSA-P256' as const, 'p1363' as const],
    ['ECDSA P-384', 'ECDSA-P384' as const, 'der' as const],
  ])('accepts a raw %s signature and returns a 12-hour token', async (_label, algorithm, ecdsaEncoding) => {
    const cred = await issueDeveloperCertificate(stack.ca, { algorithm, commonName: 'Ada Lovelace' });
    const c = await challenge();
    const res = await api.post('/api/devportal/auth/eds/login', {
      challengeId: c.challengeId,
      certificate: cred.certificatePem,
      signature: await signNonce(cred, c.nonce, { ecdsaEncoding }),
    });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    expect(res.body).toMatchObject({ tokenType: 'Bearer', expiresIn: 43200 });
    expect(Date.parse(res.body.expiresAt) - Date.now()).toBeGreaterThan(43200 * 1000 - 60_000);
    expect(res.body.developer).toMatchObject({ displayName: 'Ada Lovelace' });
    expect(res.body.developer.walletAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const decoded = jwt.decode(res.body.accessToken, { complete: true })!;
    expect(decoded.header.alg).toBe('HS256');
    expect(decoded.payload).toMatchObject({ sub: res.body.developer.id });
    const me = await api.get('/api/devportal/auth/me', { token: res.body.accessToken });
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(res.body.developer.id);
  });

  it.each([
    ['attached', false],
    ['detached', true],
  ])('accepts a CMS SignedData (%s)', async (_label, detached) => {
    const cred = await issueDeveloperCertificate(stack.ca);
    const c = await challenge();
    const res = await api.post('/api/devportal/auth/eds/login', {
      challengeId: c.challengeId,
      cms: await signNonceCms(cred, c.nonce, { detached }),
    });
    expect(res.status).toBe(201);
    expect(res.body.developer.id).toBeDefined();
  });

  it('accepts a base64 DER certificate as well as PEM', async () => {
    const cred = await issueDeveloperCertificate(stack.ca);
    const der = cred.certificatePem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
    const c = await challenge();
    const res = await api.post('/api/devportal/auth/eds/login', {
      challengeId: c.challengeId,
      certificate: der,
      signature: await signNonce(cred, c.nonce),
    });
    expect(res.status).toBe(201);
  });

  it('is the same developer after a certificate renewal with the same serialNumber', async () => {
    const first = await login(
      api,
      stack.ca,
      await issueDeveloperCertificate(stack.ca, { serialNumber: 'IIN900101300123' }),
    );
    const renewed = await issueDeveloperCertificate(stack.ca, {
      serialNumber: 'IIN900101300123',
      algorithm: 'RSA',
      commonName: 'Renamed Developer',
    });
    const second = await login(api, stack.ca, renewed);
    expect(second.developerId).toBe(first.developerId);
    expect(second.walletAddress).toBe(first.walletAddress);
    const me = await api.get('/api/devportal/auth/me', { token: second.token });
    expect(me.body.displayName).toBe('Renamed Developer');
    expect(me.body.subject).toContain('IIN900101300123');
  });

  it('keys a certificate without serialNumber by its public key', async () => {
    const cred = await issueCertificate(stack.ca, { commonName: 'No Serial' });
    const a = await login(api, stack.ca, cred);
    const b = await login(api, stack.ca, cred);
    expect(a.developerId).toBe(b.developerId);
    const other = await login(api, stack.ca, await issueCertificate(stack.ca, { commonName: 'No Serial' }));
    expect(other.developerId).not.toBe(a.developerId);
  });

  async function attempt(body: Record<string, unknown>) {
    return api.post('/api/devportal/auth/eds/login', body);
  }

  async function expectRefused(make: (nonce: string) => Promise<Record<string, unknown>>, reason: RegExp) {
    const c = await challenge();
    const res = await attempt({ challengeId: c.challengeId, ...(await make(c.nonce)) });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('EDS_INVALID');
    expect(res.body.error.message).toMatch(reason);
    return res;
  }

  it('refuses a replayed challenge, even after a failed attempt', async () => {
    const cred = await issueDeveloperCertificate(stack.ca);
    const c = await challenge();
    const body = {
      challengeId: c.challengeId,
      certificate: cred.certificatePem,
      signature: await signNonce(cred, c.nonce),
    };
    expect((await attempt(body)).status).toBe(201);
    const replay = await attempt(body);
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatchObject({ code: 'EDS_INVALID' });

    const c2 = await challenge();
    const bad = await attempt({
      challengeId: c2.challengeId,
      certificate: cred.certificatePem,
      signature: await signNonce(cred, 'other'),
    });
    expect(bad.status).toBe(401);
    const good = await attempt({
      challengeId: c2.challengeId,
      certificate: cred.certificatePem,
      signature: await signNonce(cred, c2.nonce),
    });
    expect(good.status).toBe(401);
  });

  it('refuses an expired challenge', async () => {
    const cred = await issueDeveloperCertificate(stack.ca);
    const c = await challenge();
    await query(`UPDATE login_challenges SET expires_at = now() - interval '1 second' WHERE id = $1`, [c.challengeId]);
    const res = await attempt({
      challengeId: c.challengeId,
      certificate: cred.certificatePem,
      signature: await signNonce(cred, c.nonce),
    });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/expired/);
  });

  it('refuses an unknown challenge', async () => {
    const cred = await issueDeveloperCertificate(stack.ca);
    const res = await attempt({
      challengeId: '00000000-0000-4000-8000-000000000000',
      certificate: cred.certificatePem,
      signature: await signNonce(cred, 'x'),
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('EDS_INVALID');
  });

  it('refuses a signature over something else', async () => {
    const cred = await issueDeveloperCertificate(stack.ca);
    await expectRefused(
      async () => ({ certificate: cred.certificatePem, signature: await signNonce(cred, 'not the nonce') }),
      /signature/i,
    );
  });

  it('refuses a certificate from an untrusted CA', async () => {
    const other = await createDevCa({ commonName: 'Some Other CA' });
    const cred = await issueDeveloperCertificate(other);
    await expectRefused(
      async (n) => ({ certificate: cred.certificatePem, signature: await signNonce(cred, n) }),
      /trusted/i,
    );
  });

  it('refuses a look-alike CA with the same name as the trusted one', async () => {
    const lookAlike = await createDevCa({ commonName: 'Test EDS Root CA' });
    const cred = await issueDeveloperCertificate(lookAlike);
    await expectRefused(
      async (n) => ({ certificate: cred.certificatePem, signature: await signNonce(cred, n) }),
      /trusted/i,
    );
  });

  it('refuses an expired certificate and a not yet valid one', async () => {
    const day = 24 * 3600 * 1000;
    const expired = await issueDeveloperCertificate(stack.ca, {
      notBefore: new Date(Date.now() - 10 * day),
      notAfter: new Date(Date.now() - day),
    });
    await expectRefused(
      async (n) => ({ certificate: expired.certificatePem, signature: await signNonce(expired, n) }),
      /expired/i,
    );
    const future = await issueDeveloperCertificate(stack.ca, {
      notBefore: new Date(Date.now() + day),
      notAfter: new Date(Date.now() + 10 * day),
    });
    await expectRefused(
      async (n) => ({ certificate: future.certificatePem, signature: await signNonce(future, n) }),
      /not yet valid/i,
    );
  });

  it('refuses a certificate whose key usage does not allow digital signatures', async () => {
    const cred = await issueDeveloperCertificate(stack.ca, { keyUsageDigitalSignature: false });
    await expectRefused(
      async (n) => ({ certificate: cred.certificatePem, signature: await signNonce(cred, n) }),
      /key usage/i,
    );
  });

  it('refuses CMS signed by an untrusted signer', async () => {
    const other = await createDevCa({ commonName: 'Test EDS Root CA' });
    const cred = await issueDeveloperCertificate(other);
    await expectRefused(async (n) => ({ cms: await signNonceCms(cred, n) }), /trusted/i);
  });

  it('refuses garbage certificates and signatures with 401, not 500', async () => {
    await expectRefused(async () => ({ certificate: 'not a certificate', signature: 'AAAA' }), /certificate/i);
    await expectRefused(async () => ({ cms: 'bm90IGNtcw==' }), /CMS/i);
  });

  it('answers 400 VALIDATION_FAILED for a body without the needed fields', async () => {
    for (const body of [
      {},
      { challengeId: 'not-a-uuid', cms: 'x' },
      { challengeId: '00000000-0000-4000-8000-000000000000' },
      { challengeId: 5 },
    ]) {
      const res = await attempt(body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('developer tokens', () => {
  let dev: Awaited<ReturnType<typeof login>>;
  beforeAll(async () => {
    dev = await login(api, stack.ca);
  });

  const me = (token?: string, raw?: string) =>
    api.get('/api/devportal/auth/me', raw ? { headers: { authorization: raw } } : { token });

  it('refuses a missing, malformed, tampered, alg:none, foreign-algorithm or expired token with 401', async () => {
    const [h, p] = dev.token.split('.');
    const tamperedPayload = Buffer.from(
      JSON.stringify({ ...(jwt.decode(dev.token) as object), sub: '00000000-0000-4000-8000-000000000000' }),
    ).toString('base64url');
    const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`;
    const hs512 = jwt.sign({ sub: dev.developerId, iss: 'qbft-devportal' }, TEST_JWT_SECRET, { algorithm: 'HS512' });
    const expired = jwt.sign(
      {
        sub: dev.developerId,
        iss: 'qbft-devportal',
        iat: Math.floor(Date.now() / 1000) - 43201,
        exp: Math.floor(Date.now() / 1000) - 1,
      },
      TEST_JWT_SECRET,
      { algorithm: 'HS256' },
    );
    const otherSecret = jwt.sign(
      { sub: dev.developerId, iss: 'qbft-devportal' },
      'another-secret-another-secret-another',
      { algorithm: 'HS256' },
    );
    for (const res of [
      await me(),
      await me(undefined, 'Basic abc'),
      await me('garbage'),
      await me(`${h}.${tamperedPayload}.${dev.token.split('.')[2]}`),
      await me(none),
      await me(hs512),
      await me(expired),
      await me(otherSecret),
      await me('svc_abcdefabcdefabcdefabcdefabcdefabcdefabcdefa'),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    }
    expect((await me(expired)).body.error.message).toMatch(/expired/);
  });

  it('refuses a correctly signed token without exp or without iat', async () => {
    // jsonwebtoken adds iat unless told not to, and then drops a given one too.
    const sign = (claims: { iat?: number; exp?: number }) =>
      jwt.sign({ sub: dev.developerId, iss: 'qbft-devportal', ...claims }, TEST_JWT_SECRET, {
        algorithm: 'HS256',
        noTimestamp: claims.iat === undefined,
      });
    const now = Math.floor(Date.now() / 1000);
    for (const token of [sign({ iat: now }), sign({ exp: now + 3600 }), sign({})]) {
      const res = await me(token);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHENTICATED');
    }
    expect((await me(sign({ iat: now, exp: now + 3600 }))).status).toBe(200);
  });

  it('logout revokes every earlier token of the developer, and only those', async () => {
    const mine = await login(api, stack.ca);
    const second = await login(api, stack.ca, mine.credential);
    const bystander = await login(api, stack.ca);
    expect((await me(second.token)).status).toBe(200);

    const out = await api.post('/api/devportal/auth/logout', undefined, { token: mine.token });
    expect(out.status).toBe(201);
    expect(Date.parse(out.body.revokedBefore)).toBeGreaterThan(Date.now() - 60_000);
    for (const token of [mine.token, second.token]) {
      const res = await me(token);
      expect(res.status).toBe(401);
      expect(res.body.error.message).toMatch(/logout/);
    }
    expect((await api.post('/api/devportal/auth/logout', undefined, { token: mine.token })).status).toBe(401);
    // A new login works at once, also within the same second; other developers are untouched.
    const again = await login(api, stack.ca, mine.credential);
    expect(again.developerId).toBe(mine.developerId);
    expect((await me(again.token)).status).toBe(200);
    expect((await me(bystander.token)).status).toBe(200);
    // GraphQL: the same mutation, the same effect.
    const gql = await api.graphql('mutation { logout { revokedBefore } }', {}, { token: again.token });
    expect(gql.body.data.logout.revokedBefore).toEqual(expect.any(String));
    expect((await me(again.token)).status).toBe(401);
  });

  it('shows a developer their own profile with wallets and projects, and refuses other ids with 403', async () => {
    const own = await api.get(`/api/devportal/developers/${dev.developerId}`, { token: dev.token });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({
      id: dev.developerId,
      walletAddress: dev.walletAddress,
      wallets: [{ address: dev.walletAddress, networks: ['testnet', 'mainnet'] }],
      projects: [],
    });
    const other = await login(api, stack.ca);
    for (const id of [other.developerId, 'not-a-uuid']) {
      const res = await api.get(`/api/devportal/developers/${id}`, { token: dev.token });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
    expect((await api.get(`/api/devportal/developers/${dev.developerId}`)).status).toBe(401);
  });
});

describe('projects', () => {
  let dev: Awaited<ReturnType<typeof login>>;
  beforeAll(async () => {
    dev = await login(api, stack.ca);
  });

  it('creates a project and lists it in the developer profile', async () => {
    const res = await api.post(
      '/api/devportal/projects',
      { name: '  Payments  ', description: 'Invoices on chain' },
      { token: dev.token },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Payments', description: 'Invoices on chain', ownerId: dev.developerId });
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    const profile = await api.get(`/api/devportal/developers/${dev.developerId}`, { token: dev.token });
    expect(profile.body.projects).toEqual([res.body]);
  });

  it('needs a developer token', async () => {
    const res = await api.post('/api/devportal/projects', { name: 'x' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHENTICATED');
  });

  it.each([
    ['no name', {}],
    ['an empty name', { name: '' }],
    ['a blank name', { name: '   ' }],
    ['a name over 100 characters', { name: 'x'.repeat(101) }],
    ['a non-string name', { name: 42 }],
    ['a description over 1000 characters', { name: 'ok', description: 'd'.repeat(1001) }],
  ])('refuses %s with 400 VALIDATION_FAILED and stores nothing', async (_label, body) => {
    const before = await query<{ n: string }>('SELECT count(*) AS n FROM projects');
    const res = await api.post('/api/devportal/projects', body, { token: dev.token });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.message).toEqual(expect.any(String));
    const after = await query<{ n: string }>('SELECT count(*) AS n FROM projects');
    expect(after[0]!.n).toBe(before[0]!.n);
  });
});

describe('custodial wallet', () => {
  it('stores the private key only encrypted and never returns it', async () => {
    const dev = await login(api, stack.ca);
    const [row] = await query<{ address: string; encrypted_key: Buffer }>(
      'SELECT w.address, w.encrypted_key FROM custodial_wallets w WHERE developer_id = $1',
      [dev.developerId],
    );
    expect(row!.address).toBe(dev.walletAddress);
    const privateKey = openPrivateKey(row!.encrypted_key, row!.address, Buffer.from(TEST_WALLET_KEY, 'hex'));
    const hex = privateKey.slice(2);
    expect(row!.encrypted_key.toString('hex')).not.toContain(hex);
    const columns = await query<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns WHERE table_name = 'custodial_wallets'`,
    );
    expect(columns.map((c) => c.column_name).sort()).toEqual([
      'address',
      'created_at',
      'developer_id',
      'encrypted_key',
      'id',
    ]);
    const responses = [
      await api.get('/api/devportal/auth/me', { token: dev.token }),
      await api.get(`/api/devportal/developers/${dev.developerId}`, { token: dev.token }),
      await api.graphql('{ me { id walletAddress } }', {}, { token: dev.token }),
    ];
    for (const r of responses) expect(JSON.stringify(r.body).toLowerCase()).not.toContain(hex.toLowerCase());
  });
});

describe('HTTP conventions', () => {
  it('answers 413 PAYLOAD_TOO_LARGE for bodies over 1 MiB, on REST and GraphQL', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) });
    const rest = await api.call('POST', '/api/devportal/projects', undefined, { raw: big });
    expect(rest.status).toBe(413);
    expect(rest.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    const gql = await api.call('POST', '/graphql', undefined, {
      raw: JSON.stringify({ query: `{ __typename }`, pad: 'x'.repeat(1024 * 1024 + 10) }),
    });
    // GraphQL speaks GraphQL's error body (docs/api.md, "GraphQL specifics").
    expect(gql.status).toBe(413);
    expect(gql.body.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers a body it cannot decode with 415 or 400, never 500, on REST and GraphQL', async () => {
    const send = (path: string, body: string, headers: Record<string, string>) =>
      fetch(`${stack.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      }).then(async (r) => {
        const body = (await r.json()) as { error?: { code: string }; errors?: Array<{ extensions: { code: string } }> };
        // REST's error body, or GraphQL's on /graphql.
        return { status: r.status, headers: r.headers, code: body.error?.code ?? body.errors?.[0]?.extensions.code };
      });
    const json = JSON.stringify({ name: 'p' });
    for (const path of ['/api/devportal/projects', '/graphql']) {
      const unknownCoding = await send(path, json, { 'content-encoding': 'compress' });
      expect(unknownCoding.status).toBe(415);
      expect(unknownCoding.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(unknownCoding.headers.get('accept-encoding')).toBe('gzip, deflate, br, identity');
      // Claims gzip, is not: the stream cannot be undone.
      const corrupt = await send(path, 'not gzip at all', { 'content-encoding': 'gzip' });
      expect(corrupt.status).toBe(400);
      expect(corrupt.code).toBe('VALIDATION_FAILED');
    }
    const latin1 = await send('/graphql', JSON.stringify({ query: '{ __typename }' }), {
      'content-type': 'application/json; charset=latin1',
    });
    expect(latin1.status).toBe(415);
    expect(latin1.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 400 VALIDATION_FAILED for malformed JSON and non-object bodies', async () => {
    for (const raw of ['{"name": ', '[1,2]', '"text"', 'null']) {
      const res = await api.call('POST', '/api/devportal/projects', undefined, { raw });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('answers unknown routes with a JSON 404', async () => {
    for (const path of [
      '/nope',
      '/api/devportal/nope',
      '/api/devportal/webhook',
      '/api/explorer/nope',
      '/api/devportal/docs',
    ]) {
      const res = await api.get(path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
    const wrongMethod = await api.del('/api/devportal/auth/me');
    expect(wrongMethod.status).toBe(404);
  });

  it("does not serve SOFA's webhook subscriptions (they would POST to any URL given)", async () => {
    let called = false;
    const listener = (await import('node:http')).createServer((_req, res) => {
      called = true;
      res.end();
    });
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', () => r()));
    const port = (listener.address() as { port: number }).port;
    const res = await api.post('/api/devportal/webhook', {
      subscription: 'serverTime',
      url: `http://127.0.0.1:${port}/hook`,
    });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    for (const path of ['/api/devportal/webhook/x', '/api/explorer/webhook', '/api/devportal/docs/index.html']) {
      expect((await api.call('POST', path, {})).status).toBe(404);
    }
    await new Promise((r) => setTimeout(r, 1500));
    listener.close();
    expect(called).toBe(false);
  });

  it('serves health, readiness with each network, and Prometheus metrics', async () => {
    expect((await api.get('/healthz')).status).toBe(200);
    const ready = await api.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      ready: true,
      database: { ready: true },
      // Without REDIS_URL the per-second limits and WebSocket caps count in this instance (docs/api.md).
      limits: { store: 'memory' },
      networks: { testnet: { healthy: true, chainId: 17991 }, mainnet: { healthy: true, chainId: 1991 } },
    });
    const metrics = await api.get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('http_request_duration_seconds');
  });

  it('counts the GraphQL documents the admission pipeline remembers in its metrics', async () => {
    const admitted = async () =>
      Number(/^graphql_admitted_documents (\d+)$/m.exec((await api.get('/metrics')).body as string)?.[1]);
    const before = await admitted();
    expect(before).toBeGreaterThanOrEqual(0);
    const document = `query Metrics${Date.now()} { __typename }`;
    expect((await api.post('/graphql', { query: document })).body).toEqual({ data: { __typename: 'Query' } });
    expect(await admitted()).toBe(before + 1);
    // The same document again is remembered, not admitted anew.
    await api.post('/graphql', { query: document });
    expect(await admitted()).toBe(before + 1);
  });

  it('serves a clean OpenAPI document of the REST routes', async () => {
    const res = await api.get('/api/devportal/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.0.3');
    expect(doc.info.version).toBe('1.0.0');
    // SOFA's own /webhook subscriptions are not documented (the service's /webhooks routes are).
    expect(Object.keys(doc.paths).some((p: string) => /\/webhook(\/|$)/.test(p))).toBe(false);
    const dev = doc.paths['/api/devportal/developers/{id}'].get;
    expect(dev.operationId).toBe('developer');
    expect(dev.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    expect(dev.security).toEqual([{ BearerAuth: [] }]);
    const project = doc.paths['/api/devportal/projects'].post;
    expect(project.responses['201']).toBeDefined();
    expect(project.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/CreateProjectInput');
    expect(doc.components.securitySchemes.ApiKeyAuth).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
  });
});

describe('identity bound to its trust anchor', () => {
  let secondRoot: Awaited<ReturnType<typeof createDevCa>>;
  let twoRoots: Stack;
  let api2: Client;
  beforeAll(async () => {
    secondRoot = await createDevCa({ commonName: 'Second Trusted Root' });
    const bundle = `${stack.dataDir}/two-roots.pem`;
    writeFileSync(bundle, stack.ca.certificatePem + secondRoot.certificatePem);
    // This stack trusts the first stack's CA and a second root.
    twoRoots = await startStack({ EDS_TRUSTED_CA_FILE: bundle });
    api2 = client(twoRoots.url);
  }, 60_000);
  afterAll(async () => {
    await twoRoots?.stop();
  });

  it('refuses the same serialNumber through another trusted root, and keeps the profile', async () => {
    const serialNumber = 'IIN880808300111';
    const victim = await login(
      api2,
      stack.ca,
      await issueDeveloperCertificate(stack.ca, { serialNumber, commonName: 'Victim' }),
    );
    const forged = await issueDeveloperCertificate(secondRoot, { serialNumber, commonName: 'Mallory' });
    const c = (await api2.post('/api/devportal/auth/eds/challenge')).body;
    const res = await api2.post('/api/devportal/auth/eds/login', {
      challengeId: c.challengeId,
      certificate: forged.certificatePem,
      signature: await signNonce(forged, c.nonce),
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('EDS_INVALID');
    expect(res.body.accessToken).toBeUndefined();
    const profile = await api2.get('/api/devportal/auth/me', { token: victim.token });
    expect(profile.body.displayName).toBe('Victim');
    // A renewed certificate through the bound root is still the same developer.
    const renewed = await login(
      api2,
      stack.ca,
      await issueDeveloperCertificate(stack.ca, { serialNumber, commonName: 'Victim Renewed' }),
    );
    expect(renewed.developerId).toBe(victim.developerId);
    expect((await api2.get('/api/devportal/auth/me', { token: renewed.token })).body.displayName).toBe(
      'Victim Renewed',
    );
  });

  it('binds a developer from before the upgrade at its next login', async () => {
    const serialNumber = 'IIN770707300222';
    const first = await login(api2, stack.ca, await issueDeveloperCertificate(stack.ca, { serialNumber }));
    // As a developer created before the binding existed.
    await sqlRows(twoRoots, `UPDATE developers SET trust_anchor = NULL WHERE id = $1`, [first.developerId]);
    const viaSecond = await login(api2, secondRoot, await issueDeveloperCertificate(secondRoot, { serialNumber }));
    expect(viaSecond.developerId).toBe(first.developerId);
    await expect(login(api2, stack.ca, await issueDeveloperCertificate(stack.ca, { serialNumber }))).rejects.toThrow(
      /401/,
    );
  });
});

describe('revocation and OpenSSL-made proofs over HTTP', () => {
  let pki: OpensslPki;
  let crlStack: Stack;
  let api3: Client;
  let root: Authority;
  let crlFile: string;

  beforeAll(async () => {
    pki = new OpensslPki();
    root = pki.root('http-root', '/C=KZ/O=National Test CA/CN=Test Root');
    const bundle = path.join(pki.dir, 'bundle.pem');
    writeFileSync(bundle, root.certPem);
    crlFile = path.join(pki.dir, 'crls.pem');
    writeFileSync(crlFile, derToPem(pki.crl(root), 'X509 CRL'));
    crlStack = await startStack({ EDS_TRUSTED_CA_FILE: bundle, EDS_CRL_FILE: crlFile, EDS_REQUIRE_CRL: 'true' });
    api3 = client(crlStack.url);
  }, 60_000);
  afterAll(async () => {
    await crlStack?.stop();
    pki?.dispose();
  });

  const cmsLogin = async (signer: Credential) => {
    const c = (await api3.post('/api/devportal/auth/eds/challenge')).body;
    return api3.post('/api/devportal/auth/eds/login', {
      challengeId: c.challengeId,
      cms: pki.cms(signer, c.nonce).toString('base64'),
    });
  };

  it('logs in with an `openssl cms -sign` proof, and refuses the certificate once the CA revokes it', async () => {
    const leaf = pki.leaf(root, 'http-leaf', '/C=KZ/CN=Ada Lovelace/serialNumber=IIN900101300777');
    const ok = await cmsLogin(leaf);
    expect(ok.status).toBe(201);
    expect(ok.body.developer.displayName).toBe('Ada Lovelace');

    pki.revoke(root, leaf);
    writeFileSync(crlFile, derToPem(pki.crl(root), 'X509 CRL'));
    await new Promise((r) => setTimeout(r, 1100)); // the file is looked at once a second
    const refused = await cmsLogin(leaf);
    expect(refused.status).toBe(401);
    expect(refused.body.error).toEqual({ code: 'EDS_INVALID', message: 'certificate revoked' });
  });

  it('fails closed for an issuer without a current CRL when EDS_REQUIRE_CRL is set', async () => {
    const intermediate = pki.intermediate(root, 'http-sub', '/C=KZ/O=National Test CA/CN=Test Sub CA');
    const leaf = pki.leaf(intermediate, 'http-sub-leaf', '/C=KZ/CN=Grace/serialNumber=IIN900101300778');
    const c = (await api3.post('/api/devportal/auth/eds/challenge')).body;
    const res = await api3.post('/api/devportal/auth/eds/login', {
      challengeId: c.challengeId,
      cms: pki.cms(leaf, c.nonce, { certs: [intermediate] }).toString('base64'),
    });
    expect(res.status).toBe(401);
    expect(res.body.error.message).toMatch(/no current CRL/);
  });
});
