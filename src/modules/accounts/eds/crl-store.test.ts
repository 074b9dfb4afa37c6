import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { AppError } from '../../../kernel/errors/app-error';
import { OpensslPki, derToPem, type Authority, type Credential } from '../../../../tests/kit/openssl-pki';
import { CrlStore } from './crl-store';
import { parseCertificateDer, type ParsedCertificate } from './pki';

/** CRLs made by `openssl ca -gencrl`, as a CA publishes them. */
describe('CrlStore', () => {
  let pki: OpensslPki;
  let root: Authority;
  let otherRoot: Authority;
  let revoked: Credential;
  let kept: Credential;
  const parsed = (c: Credential): ParsedCertificate => parseCertificateDer(c.certDer);

  beforeAll(() => {
    pki = new OpensslPki();
    root = pki.root('crl-root', '/C=KZ/O=CRL Test/CN=CRL Root');
    otherRoot = pki.root('crl-other', '/C=KZ/O=CRL Test/CN=Other Root');
    revoked = pki.leaf(root, 'crl-revoked', '/C=KZ/CN=Revoked/serialNumber=IIN100000000001');
    kept = pki.leaf(root, 'crl-kept', '/C=KZ/CN=Kept/serialNumber=IIN100000000002');
  });
  afterAll(() => pki.dispose());

  const refusal = (p: Promise<unknown>): Promise<string> =>
    p.then(
      () => 'accepted',
      (e: unknown) => (e instanceof AppError ? `${e.code}: ${e.message}` : String(e)),
    );

  it('refuses a listed certificate and passes the others; fails closed only when asked', async () => {
    const before = pki.crl(root);
    pki.revoke(root, revoked);
    const store = CrlStore.fromBytes(
      Buffer.concat([
        Buffer.from(derToPem(pki.crl(root), 'X509 CRL')),
        Buffer.from(derToPem(pki.crl(otherRoot), 'X509 CRL')),
      ]),
    );
    const now = new Date();
    expect(await refusal(store.check(parsed(revoked), parsed(root), now, false))).toBe(
      'EDS_INVALID: certificate revoked',
    );
    expect(await refusal(store.check(parsed(kept), parsed(root), now, true))).toBe('accepted');
    // The CRL from before the revocation does not list it.
    expect(await refusal(CrlStore.fromBytes(before).check(parsed(revoked), parsed(root), now, true))).toBe('accepted');
    // No CRL for this issuer: fine unless required.
    const empty = CrlStore.fromBytes(pki.crl(otherRoot));
    expect(await refusal(empty.check(parsed(kept), parsed(root), now, false))).toBe('accepted');
    expect(await refusal(empty.check(parsed(kept), parsed(root), now, true))).toMatch(/no current CRL/);
  });

  it('ignores CRLs that are not current or not signed by the issuer', async () => {
    const now = new Date();
    const stale = CrlStore.fromBytes(
      pki.crl(root, {
        lastUpdate: new Date(now.getTime() - 9 * 86400_000),
        nextUpdate: new Date(now.getTime() - 86400_000),
      }),
    );
    expect(await refusal(stale.check(parsed(revoked), parsed(root), now, false))).toBe('accepted');
    expect(await refusal(stale.check(parsed(revoked), parsed(root), now, true))).toMatch(/no current CRL/);
    // A CRL with the right issuer name, signed by a look-alike CA's key.
    const lookAlike = pki.root('crl-look-alike', '/C=KZ/O=CRL Test/CN=CRL Root');
    pki.revoke(lookAlike, kept);
    const forged = CrlStore.fromBytes(pki.crl(lookAlike));
    expect(await refusal(forged.check(parsed(kept), parsed(root), now, false))).toBe('accepted');
    expect(await refusal(forged.check(parsed(kept), parsed(root), now, true))).toMatch(/no current CRL/);
  });

  it('re-reads the file when it changes, keeps the old lists on a malformed new file, refuses a malformed file at start', async () => {
    const file = path.join(pki.dir, 'crls.pem');
    const fresh = pki.leaf(root, 'crl-fresh', '/C=KZ/CN=Fresh/serialNumber=IIN100000000003');
    writeFileSync(file, derToPem(pki.crl(root), 'X509 CRL'));
    const store = CrlStore.fromFile(file);
    const now = new Date();
    expect(await refusal(store.check(parsed(fresh), parsed(root), now, false))).toBe('accepted');

    pki.revoke(root, fresh);
    writeFileSync(file, derToPem(pki.crl(root), 'X509 CRL'));
    await new Promise((r) => setTimeout(r, 1100));
    expect(await refusal(store.check(parsed(fresh), parsed(root), new Date(), false))).toBe(
      'EDS_INVALID: certificate revoked',
    );

    writeFileSync(file, '-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n');
    await new Promise((r) => setTimeout(r, 1100));
    expect(await refusal(store.check(parsed(fresh), parsed(root), new Date(), false))).toBe(
      'EDS_INVALID: certificate revoked',
    );
    expect(() => CrlStore.fromFile(file)).toThrow(/malformed/);
  });
});
