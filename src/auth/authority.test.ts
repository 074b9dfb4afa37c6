import { AppError } from '../kernel/errors/app-error';
import { Authority, parseIpRange, type ApiKeyPrincipal, type KeyPolicies } from './authority';

/** The key policies Authority checks on every face (docs/api.md, "API keys": policies, refusals). */
describe('Authority key policies', () => {
  const authority = new Authority(undefined as never, undefined as never, { adminSubjects: [] });
  const unrestricted: KeyPolicies = {
    allowedOrigins: null,
    allowedIps: null,
    allowedMethods: null,
    expiresAt: null,
    rateLimitPerSecond: null,
    dailyQuota: null,
    spend: null,
  };
  const key = (policies: Partial<KeyPolicies>, contractIds: string[] | null = null): ApiKeyPrincipal => ({
    keyId: 'k',
    developerId: 'dev-1',
    scopes: ['read', 'write'],
    contractIds,
    policies: { ...unrestricted, ...policies },
  });
  const outcome = (f: () => void): string => {
    try {
      f();
      return 'ok';
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      const policy = (e.details as { policy?: string } | undefined)?.policy;
      return policy ? `${e.code}:${policy}` : e.code;
    }
  };
  const from = (p: ApiKeyPrincipal, clientIp: string, origin?: string) =>
    outcome(() => authority.requireKeyRequest(p, { clientIp, origin }));

  it('lets an unrestricted key through from anywhere', () => {
    expect(from(key({}), '198.51.100.7')).toBe('ok');
    expect(from(key({}), '2001:db8::1', 'https://x.example')).toBe('ok');
  });

  it('matches addresses and blocks of both families, reading IPv4-mapped IPv6 as IPv4', () => {
    const p = key({
      allowedIps: ['10.0.0.0/8', '2001:db8::/32', '192.0.2.7', '::ffff:198.51.100.0/120'].map(parseIpRange),
    });
    for (const ip of ['10.1.2.3', '::ffff:10.1.2.3', '2001:db8:1::5', '192.0.2.7', '198.51.100.200']) {
      expect({ ip, outcome: from(p, ip) }).toEqual({ ip, outcome: 'ok' });
    }
    for (const ip of ['11.0.0.1', '192.0.2.8', '2001:db9::1', '::1', '127.0.0.1', 'garbage', '']) {
      expect({ ip, outcome: from(p, ip) }).toEqual({ ip, outcome: 'KEY_POLICY_DENIED:ip' });
    }
  });

  it('refuses entries that are not plain addresses or blocks, legacy IPv4 forms (10.0.0, 0x7f.1, octal) included', () => {
    for (const entry of [
      '10.0.0.0/33',
      '10.0.0',
      '1.2.3.4/',
      'fe80::1%eth0/64x',
      'example.com',
      '2001:db8::/129',
      '0x7f.1',
      '010.0.0.1',
      '10.0.0/8',
    ]) {
      expect(() => parseIpRange(entry)).toThrow();
    }
    expect(parseIpRange('2001:db8::/32')[1]).toBe(32);
    expect(parseIpRange('192.0.2.1')[1]).toBe(32);
    expect(parseIpRange('::1')[1]).toBe(128);
  });

  it('takes exact origins only; no Origin is refused once origins are set', () => {
    const p = key({ allowedOrigins: ['https://app.example', 'http://localhost:3000'] });
    expect(from(p, '127.0.0.1', 'https://app.example')).toBe('ok');
    expect(from(p, '127.0.0.1', 'http://localhost:3000')).toBe('ok');
    for (const origin of [undefined, 'null', 'https://app.example.evil', 'http://app.example', 'https://APP.example']) {
      expect({ origin, outcome: from(p, '127.0.0.1', origin) }).toEqual({
        origin,
        outcome: 'KEY_POLICY_DENIED:origin',
      });
    }
  });

  it('refuses an expired key with INVALID_API_KEY saying so, before the other policies', () => {
    const p = key({ expiresAt: new Date(1000), allowedOrigins: ['https://app.example'] });
    expect(from(p, '127.0.0.1')).toBe('INVALID_API_KEY');
    expect(() => authority.requireKeyRequest(p, { clientIp: '127.0.0.1' })).toThrow(/expired/);
    expect(
      outcome(() => authority.requireKeyRequest(key({ expiresAt: new Date(5000) }), { clientIp: '::1' }, 4999)),
    ).toBe('ok');
  });

  it('checks methods by any of their names, and contracts among several', () => {
    const p = key({ allowedMethods: ['balanceOf', 'eth_call'] }, ['c1', 'c2']);
    expect(outcome(() => authority.requireKeyMethod(p, ['balanceOf', 'balanceOf(address)']))).toBe('ok');
    expect(outcome(() => authority.requireKeyMethod(p, ['eth_call']))).toBe('ok');
    expect(outcome(() => authority.requireKeyMethod(p, ['transfer', 'transfer(address,uint256)']))).toBe(
      'KEY_POLICY_DENIED:method',
    );
    const access = (id: string) => outcome(() => authority.requireKeyAccess(p, { id, ownerId: 'dev-1' }, 'read'));
    expect(access('c1')).toBe('ok');
    expect(access('c2')).toBe('ok');
    expect(access('c3')).toBe('KEY_NOT_FOR_CONTRACT');
  });

  it('allows access (without the error) exactly where requireKeyAccess lets the call through', () => {
    const readOnly: ApiKeyPrincipal = { ...key({}, ['c1']), scopes: ['read'] };
    for (const [contract, scope] of [
      [{ id: 'c1', ownerId: 'dev-1' }, 'read'],
      [{ id: 'c1', ownerId: 'dev-2' }, 'read'],
      [{ id: 'c2', ownerId: 'dev-1' }, 'read'],
      [{ id: 'c1', ownerId: 'dev-1' }, 'write'],
    ] as const) {
      const required = outcome(() => authority.requireKeyAccess(readOnly, contract, scope));
      expect({ contract, scope, allowed: authority.allowsKeyAccess(readOnly, contract, scope) }).toEqual({
        contract,
        scope,
        allowed: required === 'ok',
      });
    }
  });
});
