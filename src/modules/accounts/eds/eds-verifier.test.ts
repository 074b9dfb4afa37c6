import { constants, createHash, createPrivateKey, sign, X509Certificate } from 'node:crypto';
import { AppError } from '../../../kernel/errors/app-error';
import { createDevCa, issueCertificate, signNonce, signNonceCms, type DevCa, type DevCredential } from './dev-ca';
import { verifyEdsProof, type EdsIdentity, type EdsProof } from './eds-verifier';
import { webcrypto, x509 } from './pki';
import { TrustStore } from './trust-store';

const NONCE = 'nonce-6f1c2a9e-single-use';
const DAY = 24 * 3600_000;

/** Base64 DER of a PEM certificate. */
const pemToBase64Der = (pem: string): string => new X509Certificate(pem).raw.toString('base64');

async function expectRefused(proof: EdsProof, trust: TrustStore, reason: string | RegExp, now?: Date): Promise<void> {
  const err: unknown = await verifyEdsProof(proof, NONCE, trust, now).then(
    () => new Error('proof was accepted'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe('EDS_INVALID');
  expect((err as AppError).message).toMatch(reason);
}

async function rawProof(cred: DevCredential, opts?: Parameters<typeof signNonce>[2]): Promise<EdsProof> {
  return { certificate: cred.certificatePem, signature: await signNonce(cred, NONCE, opts) };
}

describe('verifyEdsProof', () => {
  let ca: DevCa;
  let trust: TrustStore;
  let rsaCa: DevCa;
  let ec256: DevCredential; // serialNumber IIN900101300123
  let ec384: DevCredential; // no serialNumber
  let rsa: DevCredential;
  let rsaPss: DevCredential;

  beforeAll(async () => {
    [ca, rsaCa] = await Promise.all([createDevCa(), createDevCa({ commonName: 'RSA Root', algorithm: 'RSA' })]);
    trust = TrustStore.fromPem(ca.certificatePem + rsaCa.certificatePem);
    [ec256, ec384, rsa, rsaPss] = await Promise.all([
      issueCertificate(ca, { commonName: 'Ada Lovelace', serialNumber: 'IIN900101300123' }),
      issueCertificate(ca, { commonName: 'Charles Babbage', algorithm: 'ECDSA-P384' }),
      issueCertificate(rsaCa, { commonName: 'Grace Hopper', serialNumber: 'IIN061209300456', algorithm: 'RSA' }),
      issueCertificate(ca, { commonName: 'Alan Turing', serialNumber: 'IIN120623300789', algorithm: 'RSA-PSS' }),
    ]);
  });

  describe('accepts', () => {
    it('RSA PKCS#1 v1.5 under an RSA CA', async () => {
      const id = await verifyEdsProof(await rawProof(rsa), NONCE, trust);
      expect(id.identityKey).toBe('sn:IIN061209300456');
    });

    it.each([32, 0, 222])('RSA-PSS with salt length %i', async (pssSaltLength) => {
      const id = await verifyEdsProof(await rawProof(rsaPss, { pssSaltLength }), NONCE, trust);
      expect(id.commonName).toBe('Alan Turing');
    });

    it('ECDSA P-256, DER and IEEE-P1363 encoded', async () => {
      for (const ecdsaEncoding of ['der', 'p1363'] as const) {
        const proof = await rawProof(ec256, { ecdsaEncoding });
        await expect(verifyEdsProof(proof, NONCE, trust)).resolves.toMatchObject({ commonName: 'Ada Lovelace' });
      }
    });

    it('ECDSA P-384, DER and IEEE-P1363 encoded', async () => {
      for (const ecdsaEncoding of ['der', 'p1363'] as const) {
        const proof = await rawProof(ec384, { ecdsaEncoding });
        await expect(verifyEdsProof(proof, NONCE, trust)).resolves.toMatchObject({ commonName: 'Charles Babbage' });
      }
    });

    it('the certificate as base64 DER instead of PEM', async () => {
      const proof = { certificate: pemToBase64Der(ec256.certificatePem), signature: await signNonce(ec256, NONCE) };
      await expect(verifyEdsProof(proof, NONCE, trust)).resolves.toMatchObject({ serialNumber: 'IIN900101300123' });
    });

    it.each([
      ['attached', false],
      ['detached', true],
    ])('CMS SignedData, %s', async (_label, detached) => {
      for (const cred of [ec256, ec384, rsa, rsaPss]) {
        const cms = await signNonceCms(cred, NONCE, { detached });
        const id = await verifyEdsProof({ cms }, NONCE, trust);
        expect(id.certificateSha256).toBe(
          createHash('sha256').update(new X509Certificate(cred.certificatePem).raw).digest('hex'),
        );
      }
    });
  });

  describe('chains', () => {
    let intermediate: DevCredential;
    let leaf: DevCredential;

    beforeAll(async () => {
      intermediate = await issueCertificate(ca, { commonName: 'Issuing CA 1', isCa: true });
      leaf = await issueCertificate(intermediate, { commonName: 'Edsger Dijkstra', serialNumber: 'IIN300511300111' });
    });

    it('through an intermediate held in the bundle', async () => {
      const bundle = TrustStore.fromPem(ca.certificatePem + intermediate.certificatePem);
      await expect(verifyEdsProof(await rawProof(leaf), NONCE, bundle)).resolves.toMatchObject({
        identityKey: 'sn:IIN300511300111',
      });
    });

    it('through an intermediate sent along with the certificate, up to the root', async () => {
      const proof = {
        certificate: leaf.certificatePem + intermediate.certificatePem,
        signature: await signNonce(leaf, NONCE),
      };
      await expect(verifyEdsProof(proof, NONCE, trust)).resolves.toMatchObject({ commonName: 'Edsger Dijkstra' });
    });

    it('refuses when the intermediate is neither in the bundle nor supplied', async () => {
      await expectRefused(await rawProof(leaf), trust, 'certificate is not issued by a trusted CA');
    });

    it('refuses an end-entity certificate used as an issuer', async () => {
      const impostor = await issueCertificate(ec256, { commonName: 'Minted', serialNumber: 'IIN900101300123' });
      const proof = {
        certificate: impostor.certificatePem + ec256.certificatePem,
        signature: await signNonce(impostor, NONCE),
      };
      await expectRefused(proof, trust, 'may not issue certificates');
      const bundle = TrustStore.fromPem(ca.certificatePem + ec256.certificatePem);
      await expectRefused(await rawProof(impostor), bundle, 'may not issue certificates');
    });

    it('refuses a path through an expired intermediate', async () => {
      const old = await issueCertificate(ca, {
        commonName: 'Issuing CA 0',
        isCa: true,
        notBefore: new Date(Date.now() - 3 * 365 * DAY),
        notAfter: new Date(Date.now() - DAY),
      });
      const child = await issueCertificate(old, { commonName: 'Late Signer' });
      const bundle = TrustStore.fromPem(ca.certificatePem + old.certificatePem);
      await expectRefused(await rawProof(child), bundle, 'an issuing CA certificate is outside its validity period');
    });
  });

  describe('refuses', () => {
    it('a signature over another nonce', async () => {
      const proof = { certificate: ec256.certificatePem, signature: await signNonce(ec256, 'another nonce') };
      await expectRefused(proof, trust, 'signature does not verify');
      const rsaProof = { certificate: rsa.certificatePem, signature: await signNonce(rsa, 'another nonce') };
      await expectRefused(rsaProof, trust, 'signature does not verify');
    });

    it("a signature by another key than the certificate's", async () => {
      const proof = { certificate: ec256.certificatePem, signature: await signNonce(ec384, NONCE) };
      await expectRefused(proof, trust, 'signature does not verify');
    });

    it('a certificate from an untrusted CA', async () => {
      const stranger = await createDevCa({ commonName: 'Stranger CA' });
      const cred = await issueCertificate(stranger, { commonName: 'Mallory' });
      await expectRefused(await rawProof(cred), trust, 'certificate is not issued by a trusted CA');
    });

    it('a look-alike CA with the same subject name but another key', async () => {
      const lookAlike = await createDevCa();
      const lookAlikeCert = new x509.X509Certificate(lookAlike.certificatePem);
      expect(lookAlikeCert.subject).toBe(new x509.X509Certificate(ca.certificatePem).subject);

      // Forge a certificate without authorityKeyIdentifier, so that only the signature tells it apart.
      const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
        'sign',
        'verify',
      ])) as CryptoKeyPair;
      const signingKey = await webcrypto.subtle.importKey(
        'pkcs8',
        x509.PemConverter.decodeFirst(lookAlike.privateKeyPem),
        { name: 'ECDSA', namedCurve: 'P-256' },
        false,
        ['sign'],
      );
      const forgedCert = await x509.X509CertificateGenerator.create({
        subject: [{ CN: ['Ada Lovelace'] }, { '2.5.4.5': ['IIN900101300123'] }],
        issuer: lookAlikeCert.subjectName,
        publicKey: keys.publicKey,
        signingKey,
        signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } as EcdsaParams,
        notBefore: new Date(Date.now() - 60_000),
        notAfter: new Date(Date.now() + DAY),
        extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
      });
      const forged: DevCredential = {
        certificatePem: forgedCert.toString('pem'),
        privateKeyPem: x509.PemConverter.encode(
          await webcrypto.subtle.exportKey('pkcs8', keys.privateKey),
          'PRIVATE KEY',
        ),
        algorithm: 'ECDSA-P256',
      };
      // By names alone the forged certificate is issued by our CA.
      expect(new X509Certificate(forged.certificatePem).checkIssued(new X509Certificate(ca.certificatePem))).toBe(true);

      await expectRefused(await rawProof(forged), trust, 'certificate is not issued by a trusted CA');
      await expectRefused(
        { cms: await signNonceCms(forged, NONCE) },
        trust,
        'certificate is not issued by a trusted CA',
      );
    });

    it('an expired certificate', async () => {
      const cred = await issueCertificate(ca, {
        commonName: 'Expired',
        notBefore: new Date(Date.now() - 2 * 365 * DAY),
        notAfter: new Date(Date.now() - DAY),
      });
      await expectRefused(await rawProof(cred), trust, 'certificate has expired');
      await expectRefused(
        await rawProof(ec256),
        trust,
        'certificate has expired',
        new Date(Date.now() + 2 * 365 * DAY),
      );
    });

    it('a certificate that is not yet valid', async () => {
      const cred = await issueCertificate(ca, {
        commonName: 'Future',
        notBefore: new Date(Date.now() + DAY),
        notAfter: new Date(Date.now() + 365 * DAY),
      });
      await expectRefused(await rawProof(cred), trust, 'certificate is not yet valid');
    });

    it('a certificate whose keyUsage lacks digitalSignature', async () => {
      const cred = await issueCertificate(ca, { commonName: 'Encipher Only', keyUsageDigitalSignature: false });
      await expectRefused(await rawProof(cred), trust, 'certificate key usage does not allow digital signatures');
    });

    it('garbage certificates and signatures', async () => {
      const signature = await signNonce(ec256, NONCE);
      await expectRefused({ certificate: 'not a certificate!', signature }, trust, 'malformed certificate');
      await expectRefused(
        { certificate: Buffer.from('random bytes').toString('base64'), signature },
        trust,
        'malformed certificate',
      );
      await expectRefused(
        { certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----', signature },
        trust,
        'malformed certificate',
      );
      await expectRefused(
        { certificate: ec256.certificatePem, signature: '%%% not base64 %%%' },
        trust,
        'malformed signature',
      );
      await expectRefused({ certificate: ec256.certificatePem, signature: 'AAAA' }, trust, 'signature does not verify');
      await expectRefused({ certificate: ec256.certificatePem } as unknown as EdsProof, trust, 'malformed signature');
      await expectRefused({ certificate: 42, signature } as unknown as EdsProof, trust, 'malformed certificate');
    });

    it('an ambiguous or empty proof', async () => {
      const cms = await signNonceCms(ec256, NONCE);
      const both = { cms, certificate: ec256.certificatePem, signature: '' } as unknown as EdsProof;
      await expectRefused(both, trust, 'provide either certificate and signature, or cms');
      await expectRefused({} as EdsProof, trust, 'provide either certificate and signature, or cms');
    });

    it('a CMS whose signer certificate is untrusted', async () => {
      const stranger = await createDevCa({ commonName: 'Stranger CA' });
      const cred = await issueCertificate(stranger, { commonName: 'Mallory' });
      await expectRefused({ cms: await signNonceCms(cred, NONCE) }, trust, 'certificate is not issued by a trusted CA');
    });

    it('a CMS over different content', async () => {
      await expectRefused(
        { cms: await signNonceCms(ec256, 'old nonce') },
        trust,
        'CMS content does not match the challenge',
      );
      await expectRefused(
        { cms: await signNonceCms(ec256, 'old nonce', { detached: true }) },
        trust,
        'signature does not verify',
      );
    });

    it('a CMS with a tampered signature or garbage', async () => {
      const der = Buffer.from(await signNonceCms(rsa, NONCE), 'base64');
      der[der.length - 5] ^= 0x01; // the signature value is the last field of the structure
      await expectRefused({ cms: der.toString('base64') }, trust, 'signature does not verify');
      await expectRefused({ cms: 'bm90IGEgQ01T' }, trust, 'malformed CMS');
      await expectRefused({ cms: '!!' }, trust, 'malformed CMS');
      await expectRefused({ cms: ec256.certificatePem }, trust, 'malformed CMS');
    });

    it('a CMS signed with a certificate lacking digitalSignature', async () => {
      const cred = await issueCertificate(ca, { commonName: 'Encipher Only', keyUsageDigitalSignature: false });
      await expectRefused(
        { cms: await signNonceCms(cred, NONCE) },
        trust,
        'certificate key usage does not allow digital signatures',
      );
    });

    it('RSA-PSS signatures over SHA-1', async () => {
      const key = createPrivateKey(rsaPss.privateKeyPem);
      const sha1 = sign('sha1', Buffer.from(NONCE), { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 20 });
      await expectRefused(
        { certificate: rsaPss.certificatePem, signature: sha1.toString('base64') },
        trust,
        'signature does not verify',
      );
    });

    it('key material never appears in reasons', async () => {
      const err = (await verifyEdsProof({ certificate: 'x', signature: 'y' }, NONCE, trust).catch(
        (e: unknown) => e,
      )) as AppError;
      expect(err.message).not.toMatch(/BEGIN|PRIVATE/);
      expect(err.details).toBeUndefined();
    });
  });

  describe('identity', () => {
    const spkiSha256 = (pem: string): string =>
      createHash('sha256')
        .update(new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' }))
        .digest('hex');

    it('is the subject serialNumber when present', async () => {
      const id: EdsIdentity = await verifyEdsProof(await rawProof(ec256), NONCE, trust);
      expect(id).toEqual({
        identityKey: 'sn:IIN900101300123',
        serialNumber: 'IIN900101300123',
        commonName: 'Ada Lovelace',
        subject: 'CN=Ada Lovelace, 2.5.4.5=IIN900101300123',
        certificateSha256: createHash('sha256').update(new X509Certificate(ec256.certificatePem).raw).digest('hex'),
        trustAnchor: spkiSha256(ca.certificatePem),
      });
    });

    it('is the SHA-256 of the public key otherwise', async () => {
      const id = await verifyEdsProof(await rawProof(ec384), NONCE, trust);
      expect(id.serialNumber).toBeNull();
      expect(id.identityKey).toBe(`pk:${spkiSha256(ec384.certificatePem)}`);
      const viaCms = await verifyEdsProof({ cms: await signNonceCms(ec384, NONCE) }, NONCE, trust);
      expect(viaCms.identityKey).toBe(id.identityKey);
    });

    it('survives renewal with a new key when the serialNumber is kept', async () => {
      const renewed = await issueCertificate(ca, {
        commonName: 'Ada Lovelace',
        serialNumber: 'IIN900101300123',
        algorithm: 'ECDSA-P384',
      });
      const before = await verifyEdsProof(await rawProof(ec256), NONCE, trust);
      const after = await verifyEdsProof({ cms: await signNonceCms(renewed, NONCE) }, NONCE, trust);
      expect(spkiSha256(renewed.certificatePem)).not.toBe(spkiSha256(ec256.certificatePem));
      expect(after.certificateSha256).not.toBe(before.certificateSha256);
      expect(after.identityKey).toBe(before.identityKey);
    });
  });
});
