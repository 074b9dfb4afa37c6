import { AppError } from '../kernel/errors/app-error';
import type { DeveloperEntity } from '../modules/accounts/developer.entity';
import { RequestLimit } from '../kernel/rate-limit';
import { Authority, type ApiKeyPrincipal } from './authority';
import { Session } from './session';

/** A session asks Authority once per identity per request, and leaves every decision to it. */
describe('Session', () => {
  const developer = { id: 'dev-1', serialNumber: 'SN1' } as DeveloperEntity;
  const principal: ApiKeyPrincipal = {
    keyId: 'k',
    developerId: 'dev-1',
    scopes: ['read'],
    contractIds: null,
    policies: {
      allowedOrigins: null,
      allowedIps: null,
      allowedMethods: null,
      expiresAt: null,
      rateLimitPerSecond: null,
      dailyQuota: null,
      spend: null,
    },
  };

  function sessionWith(adminSubjects: string[] = []) {
    // The real Authority, with only its database-reading check replaced by a counter.
    const authority = new Authority(undefined as never, undefined as never, { adminSubjects });
    const checks = { developer: 0, apiKey: 0 };
    authority.requireDeveloper = async () => {
      checks.developer += 1;
      return developer;
    };
    const keys = {
      authenticate: async () => {
        checks.apiKey += 1;
        return principal;
      },
      countDaily: async () => undefined,
      authenticateNow: () => undefined,
      countDailyNow: () => false,
    };
    return { session: new Session({ bearer: 't', apiKey: 'svc_x' }, '203.0.113.1', authority, keys), checks };
  }
  const code = (p: Promise<unknown>) =>
    p.then(
      () => 'ok',
      (e: unknown) => (e instanceof AppError ? e.code : 'other'),
    );

  it('checks the developer and the API key once per request', async () => {
    const { session, checks } = sessionWith();
    await Promise.all([session.developer(), session.developer(), session.self('dev-1')]);
    await Promise.all([session.apiKey(), session.apiKeyFor({ id: 'c', ownerId: 'dev-1' }, 'read')]);
    expect(checks).toEqual({ developer: 1, apiKey: 1 });
  });

  it('refuses another developer id, a non-admin, and a key used beyond its owner or scope', async () => {
    const { session } = sessionWith(['someone-else']);
    expect(await code(session.self('dev-2'))).toBe('FORBIDDEN');
    expect(await code(session.admin('review mainnet deployments'))).toBe('FORBIDDEN');
    expect(await code(session.apiKeyFor({ id: 'c', ownerId: 'dev-2' }, 'read'))).toBe('FORBIDDEN');
    expect(await code(session.apiKeyFor({ id: 'c', ownerId: 'dev-1' }, 'write'))).toBe('INSUFFICIENT_SCOPE');
    expect(await code(sessionWith(['SN1']).session.admin('review'))).toBe('ok');
  });
  it("charges a request to the developer's budget, but not a subscription's re-check of its key", async () => {
    // One request a second: the second renewed (a new request) is refused, re-checks never are.
    const authority = new Authority(
      undefined as never,
      undefined as never,
      { adminSubjects: [] },
      new RequestLimit(1, 1, 'requests'),
    );
    const keys = {
      authenticate: async (creds: { recheck?: true }) => {
        await authority.countRequest(principal.developerId, creds);
        return principal;
      },
      countDaily: async () => undefined,
      authenticateNow: () => undefined,
      countDailyNow: () => false,
    };
    const session = new Session({ apiKey: 'svc_x' }, '203.0.113.1', authority, keys);
    expect(await code(session.apiKey())).toBe('ok');
    for (let i = 0; i < 50; i++) expect(await code(session.rechecked().apiKey())).toBe('ok');
    expect(await code(session.renewed().apiKey())).toBe('RATE_LIMITED');
  });
});
