import { mkdtempSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { createDevCa, issueCertificate, loadOrCreateDevCa, signNonce } from './dev-ca';
import { verifyEdsProof } from './eds-verifier';
import { TrustStore } from './trust-store';

describe('loadOrCreateDevCa', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'eds-dev-ca-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates the CA once, with a private key file only its owner can read, and reloads it', async () => {
    const first = await loadOrCreateDevCa(dataDir);
    expect(first.bundlePath).toBe(join(dataDir, 'eds', 'dev-ca.crt.pem'));
    expect(statSync(join(dataDir, 'eds', 'dev-ca.key.pem')).mode & 0o777).toBe(0o600);
    const ca = new X509Certificate(first.certificatePem);
    expect(ca.ca).toBe(true);
    expect(ca.checkPrivateKey(createPrivateKey(first.privateKeyPem))).toBe(true);

    const second = await loadOrCreateDevCa(dataDir);
    expect(second).toEqual(first);

    // The bundle file is a usable trust store for certificates the CA issues.
    const cred = await issueCertificate(second, { commonName: 'Local Developer', serialNumber: 'DEV-0001' });
    const proof = { certificate: cred.certificatePem, signature: await signNonce(cred, 'n') };
    await expect(verifyEdsProof(proof, 'n', TrustStore.fromFile(first.bundlePath))).resolves.toMatchObject({
      identityKey: 'sn:DEV-0001',
    });
  });

  it('refuses to silently replace half a CA', async () => {
    await loadOrCreateDevCa(dataDir);
    unlinkSync(join(dataDir, 'eds', 'dev-ca.key.pem'));
    await expect(loadOrCreateDevCa(dataDir)).rejects.toThrow(/incomplete/);
  });
});

describe('createDevCa', () => {
  it('makes a self-signed CA certificate with the requested name', async () => {
    const ca = await createDevCa({ commonName: 'Team CA' });
    const cert = new X509Certificate(ca.certificatePem);
    expect(cert.subject).toBe('CN=Team CA');
    expect(cert.issuer).toBe('CN=Team CA');
    expect(cert.ca).toBe(true);
    expect(cert.verify(cert.publicKey)).toBe(true);
  });
});

describe('TrustStore', () => {
  it('parses every certificate of a bundle and refuses bundles without any', async () => {
    const [a, b] = await Promise.all([createDevCa({ commonName: 'A' }), createDevCa({ commonName: 'B' })]);
    const store = TrustStore.fromPem(`# comment\n${a.certificatePem}\n${b.certificatePem}${a.certificatePem}`);
    expect(store.certificates.map((c) => c.x509.subject)).toEqual(['CN=A', 'CN=B']);
    expect(() => TrustStore.fromPem('')).toThrow(/no PEM certificate/);
    expect(() => TrustStore.fromPem(a.privateKeyPem)).toThrow(/no PEM certificate/);
    expect(() => TrustStore.fromPem('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----')).toThrow(
      /malformed/,
    );
  });
});
