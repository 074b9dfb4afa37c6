import { LiveCredentials, logoutNotice, parseLogoutNotice, type CredentialIdentity } from './live-credentials';
import type { Credentials } from './credentials';

/** Credentials named directly by their identity (the app derives it from the key or token). */
const identities = new Map<Credentials, CredentialIdentity>();
const creds = (identity?: CredentialIdentity): Credentials => {
  const c: Credentials = {};
  if (identity) identities.set(c, identity);
  return c;
};

describe('LiveCredentials', () => {
  const live = () => new LiveCredentials((c) => identities.get(c));

  it('ends the operations of a revoked key, and only those, once', () => {
    const registry = live();
    const ended: string[] = [];
    registry.watch(creds({ apiKeyHash: 'k1' }), (e) => ended.push(`a ${e.code}`));
    registry.watch(creds({ apiKeyHash: 'k1' }), (e) => ended.push(`b ${e.code}`));
    registry.watch(creds({ apiKeyHash: 'k2' }), (e) => ended.push(`c ${e.code}`));
    registry.keyRevoked('k1');
    registry.keyRevoked('k1');
    expect(ended).toEqual(['a INVALID_API_KEY', 'b INVALID_API_KEY']);
    expect(registry.size).toBe(1);
  });

  it('ends on logout the operations of tokens issued before it, not those of a later login', () => {
    const registry = live();
    const ended: string[] = [];
    registry.watch(creds({ developerId: 'd1', generation: 0 }), (e) => ended.push(`old ${e.code}`));
    registry.watch(creds({ developerId: 'd1', generation: 1 }), (e) => ended.push(`new ${e.code}`));
    registry.watch(creds({ developerId: 'd2', generation: 0 }), (e) => ended.push(`other ${e.code}`));
    registry.loggedOut('d1', 1);
    expect(ended).toEqual(['old UNAUTHENTICATED']);
    registry.loggedOut('d1', 2);
    expect(ended).toEqual(['old UNAUTHENTICATED', 'new UNAUTHENTICATED']);
  });

  it('forgets an operation that stopped watching, and watches nothing for anonymous callers', () => {
    const registry = live();
    const ended: string[] = [];
    const stop = registry.watch(creds({ apiKeyHash: 'k' }), () => ended.push('k'));
    registry.watch(creds(), () => ended.push('anonymous'));
    expect(registry.size).toBe(1);
    stop();
    expect(registry.size).toBe(0);
    registry.keyRevoked('k');
    expect(ended).toEqual([]);
  });

  it('ends every watched operation when revocations may have been missed', () => {
    const registry = live();
    const ended: string[] = [];
    registry.watch(creds({ apiKeyHash: 'k' }), (e) => ended.push(`key ${e.code}`));
    registry.watch(creds({ developerId: 'd', generation: 3 }), (e) => ended.push(`token ${e.code}`));
    registry.revocationsMissed();
    expect(ended).toEqual(['key SERVICE_UNAVAILABLE', 'token SERVICE_UNAVAILABLE']);
    expect(registry.size).toBe(0);
  });

  it('tells a logout notice from a key hash on the shared channel', () => {
    const notice = logoutNotice('3f1c8a5e-0000-4000-8000-000000000001', 7);
    expect(notice).not.toMatch(/\s/);
    expect(parseLogoutNotice(notice)).toEqual({ developerId: '3f1c8a5e-0000-4000-8000-000000000001', generation: 7 });
    expect(parseLogoutNotice('ab'.repeat(32))).toBeUndefined();
    expect(parseLogoutNotice('logout:x:1e9')).toBeUndefined();
  });
});
