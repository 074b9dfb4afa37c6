import { createHash, createPrivateKey } from 'node:crypto';
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { leastLoopHoldCpuMs } from '../../../../tests/kit/cpu-time';
import * as der from '../../../../tests/kit/der-surgery';
import { derToPem, OpensslPki, spkiSha256, type Authority, type Credential } from '../../../../tests/kit/openssl-pki';
import { AppError } from '../../../kernel/errors/app-error';
import { CrlStore } from './crl-store';
import { verifyEdsProof, type EdsIdentity, type EdsProof, type RevocationPolicy } from './eds-verifier';
import { TrustStore } from './trust-store';

/*
 * The login verifier against an attacker: forged and malformed CMS, certificates that break RFC 5280
 * path rules, revoked certificates and inputs built to burn CPU. Every certificate, CRL and signature
 * is made by the openssl command line (tests/kit/openssl-pki.ts); forgeries are byte edits of those.
 */

const NONCE = 'adversarial-login-nonce-0001';
const OLD_NONCE = 'an-older-nonce-the-victim-signed';
const DAY = 24 * 3600 * 1000;
/** Certificates are issued around the real clock; verification runs at a fixed instant of that span. */
const NOW = new Date();
const ADA = '/C=KZ/O=Test Citizens/CN=Ada/serialNumber=IIN900101300123';

let pki: OpensslPki;
let ecRoot: Authority;
let ec384Root: Authority;
let rsaRoot: Authority;
let rsa3072Root: Authority;
let ada: Credential;
let adaRenewed: Credential;
let bob: Credential;
let ada384: Credential;
let rsaLeaf: Credential;
let rsa3072Leaf: Credential;
let ecInt: Authority;
let intLeaf: Credential;
let trust: TrustStore;

const b64 = (data: Buffer): string => data.toString('base64');
const cmsProof = (cms: Buffer): EdsProof => ({ cms: b64(cms) });

/** A certificate + raw signature proof, the certificate as PEM (with the chain after it) or base64 DER. */
function rawProof(
  signer: Credential,
  opts: { chain?: Credential[]; form?: 'pem' | 'der'; mode?: Parameters<OpensslPki['signRaw']>[2] } = {},
): EdsProof {
  const isRsa = createPrivateKey(readFileSync(signer.keyPath)).asymmetricKeyType === 'rsa';
  const signature = pki.signRaw(signer, NONCE, opts.mode ?? (isRsa ? 'pkcs1' : 'ecdsa-der'));
  const certificate =
    opts.form === 'der' ? b64(signer.certDer) : [signer, ...(opts.chain ?? [])].map((c) => c.certPem).join('');
  return { certificate, signature: b64(signature) };
}

/** Asserts the proof is refused with EDS_INVALID (and the reason, when given) and returns the error. */
async function expectRefused(
  proof: EdsProof,
  opts: { trust?: TrustStore; reason?: RegExp; now?: Date; revocation?: RevocationPolicy; nonce?: string } = {},
): Promise<AppError> {
  let error: unknown;
  try {
    await verifyEdsProof(proof, opts.nonce ?? NONCE, opts.trust ?? trust, opts.now ?? NOW, opts.revocation);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('EDS_INVALID');
  if (opts.reason) expect((error as AppError).message).toMatch(opts.reason);
  return error as AppError;
}

const accept = (
  proof: EdsProof,
  opts: { trust?: TrustStore; now?: Date; revocation?: RevocationPolicy } = {},
): Promise<EdsIdentity> => verifyEdsProof(proof, NONCE, opts.trust ?? trust, opts.now ?? NOW, opts.revocation);

beforeAll(() => {
  pki = new OpensslPki();
  ecRoot = pki.root('ec-root', '/C=KZ/O=Test National CA/CN=Test Root EC P-256');
  ec384Root = pki.root('ec384-root', '/C=KZ/O=Test National CA/CN=Test Root EC P-384', { key: 'ec-p384' });
  rsaRoot = pki.root('rsa-root', '/C=KZ/O=Test National CA/CN=Test Root RSA 2048', { key: 'rsa-2048' });
  rsa3072Root = pki.root('rsa3072-root', '/C=KZ/O=Test National CA/CN=Test Root RSA 3072', { key: 'rsa-3072' });
  ada = pki.leaf(ecRoot, 'ada', ADA);
  adaRenewed = pki.leaf(ecRoot, 'ada-renewed', ADA);
  bob = pki.leaf(ecRoot, 'bob', '/C=KZ/CN=Bob/serialNumber=IIN800202400456');
  ada384 = pki.leaf(ec384Root, 'ada384', ADA, { key: 'ec-p384' });
  rsaLeaf = pki.leaf(rsaRoot, 'rsa-leaf', '/C=KZ/CN=Rosa/serialNumber=IIN700303500789', { key: 'rsa-2048' });
  rsa3072Leaf = pki.leaf(rsa3072Root, 'rsa3072-leaf', '/C=KZ/CN=Rasul/serialNumber=IIN710303500111');
  ecInt = pki.intermediate(ecRoot, 'ec-int', '/C=KZ/O=Test National CA/CN=Test Issuing CA 1', { pathlen: 0 });
  intLeaf = pki.leaf(ecInt, 'int-leaf', '/C=KZ/CN=Ivan/serialNumber=IIN850505600222');
  trust = TrustStore.fromPem([ecRoot, ec384Root, rsaRoot, rsa3072Root].map((c) => c.certPem).join(''));
}, 120_000);

afterAll(() => pki?.dispose());

describe('valid proofs keep working', () => {
  it('raw ECDSA P-256 signatures, DER and IEEE-P1363, with PEM and base64 DER certificates', async () => {
    for (const proof of [
      rawProof(ada, { mode: 'ecdsa-der' }),
      rawProof(ada, { mode: 'ecdsa-p1363' }),
      rawProof(ada, { mode: 'ecdsa-der', form: 'der' }),
      rawProof(ada, { mode: 'ecdsa-p1363', form: 'der' }),
    ]) {
      const id = await accept(proof);
      expect(id.serialNumber).toBe('IIN900101300123');
      expect(id.commonName).toBe('Ada');
      expect(id.trustAnchor).toBe(spkiSha256(ecRoot));
      expect(id.certificateSha256).toBe(createHash('sha256').update(ada.certDer).digest('hex'));
    }
  });

  it('raw ECDSA P-384 signatures, DER and IEEE-P1363', async () => {
    for (const mode of ['ecdsa-der', 'ecdsa-p1363'] as const) {
      const id = await accept(rawProof(ada384, { mode }));
      expect(id.serialNumber).toBe('IIN900101300123');
      expect(id.trustAnchor).toBe(spkiSha256(ec384Root));
    }
  });

  it('raw RSA PKCS#1 v1.5 and RSA-PSS with salt 32 and maximum salt', async () => {
    for (const mode of ['pkcs1', 'pss-32', 'pss-max'] as const) {
      const id = await accept(rawProof(rsaLeaf, { mode }));
      expect(id.commonName).toBe('Rosa');
      expect(id.trustAnchor).toBe(spkiSha256(rsaRoot));
    }
  });

  it('a PEM with the intermediate after the leaf, and a CMS carrying the intermediate', async () => {
    const id = await accept(rawProof(intLeaf, { chain: [ecInt] }));
    expect(id.serialNumber).toBe('IIN850505600222');
    expect(id.trustAnchor).toBe(spkiSha256(ecRoot));
    const viaCms = await accept(cmsProof(pki.cms(intLeaf, NONCE, { certs: [ecInt] })));
    expect(viaCms.identityKey).toBe(id.identityKey);
  });

  it('CMS attached and detached as `openssl cms -sign` makes them (default signed attributes)', async () => {
    for (const detached of [false, true]) {
      const id = await accept(cmsProof(pki.cms(ada, NONCE, { detached })));
      expect(id.serialNumber).toBe('IIN900101300123');
      expect(id.commonName).toBe('Ada');
      expect(id.trustAnchor).toBe(spkiSha256(ecRoot));
    }
    const rsa = await accept(cmsProof(pki.cms(rsaLeaf, NONCE, { detached: true })));
    expect(rsa.trustAnchor).toBe(spkiSha256(rsaRoot));
  });

  it('several roots in the bundle: the anchor is shared under one root and differs across roots', async () => {
    const [a, b, c, d] = await Promise.all([
      accept(rawProof(ada)),
      accept(rawProof(bob)),
      accept(rawProof(ada384)),
      accept(rawProof(rsa3072Leaf)),
    ]);
    expect(a.trustAnchor).toBe(b.trustAnchor);
    expect(a.identityKey).not.toBe(b.identityKey);
    expect(new Set([a.trustAnchor, c.trustAnchor, d.trustAnchor]).size).toBe(3);
    expect(d.trustAnchor).toBe(spkiSha256(rsa3072Root));
    // The same person under another root is the same identityKey: binding it to an anchor is the caller's job.
    expect(c.identityKey).toBe(a.identityKey);
  });

  it('a renewed certificate (same serialNumber, new key) keeps the identity', async () => {
    const first = await accept(rawProof(ada));
    const renewed = await accept(rawProof(adaRenewed));
    expect(renewed.identityKey).toBe(first.identityKey);
    expect(renewed.certificateSha256).not.toBe(first.certificateSha256);
    expect(renewed.trustAnchor).toBe(first.trustAnchor);
  });

  it('leaves with extendedKeyUsage clientAuth, emailProtection or anyExtendedKeyUsage', async () => {
    for (const eku of ['clientAuth', 'emailProtection', 'anyExtendedKeyUsage', 'serverAuth,clientAuth']) {
      const leaf = pki.leaf(ecRoot, 'eku', '/C=KZ/CN=Eku User', { extendedKeyUsage: eku });
      await expect(accept(rawProof(leaf))).resolves.toMatchObject({ commonName: 'Eku User' });
    }
  });

  it('a leaf with keyUsage digitalSignature alone, and one without keyUsage', async () => {
    for (const keyUsage of ['critical,digitalSignature', null]) {
      const leaf = pki.leaf(ecRoot, 'ku', '/C=KZ/CN=Ku User', { keyUsage });
      await expect(accept(rawProof(leaf))).resolves.toMatchObject({ commonName: 'Ku User' });
    }
  });
});

describe('forged and malformed CMS', () => {
  /** The victim's CMS over an old nonce (a signed document or a login seen in a log). */
  const victimCms = (): Buffer => pki.cms(ada, OLD_NONCE);

  /** Signed attributes an attacker writes for the current nonce: contentType data, messageDigest. */
  function attackerAttributes(nonce: string): Buffer {
    const contentType = der.seq(der.oid(der.CMS.oid.contentType), der.set(der.oid(der.CMS.oid.data)));
    const digest = createHash('sha256').update(nonce).digest();
    const messageDigest = der.seq(der.oid(der.CMS.oid.messageDigest), der.set(der.octets(digest)));
    return der.tlv(0xa0, ...der.children(der.setOf(contentType, messageDigest)));
  }

  /**
   * The parts of a forgery: the victim's SignedData children with the current nonce as content,
   * and a SignerInfo carrying attacker-written attributes with the victim's old signature value.
   */
  function forgeryParts(): { signedDataKids: Buffer[]; forged: Buffer; victim: Buffer } {
    const signedData = der.signedDataOf(victimCms());
    const kids = der.children(signedData);
    const [victim] = der.children(kids[kids.length - 1]!);
    const si = der.children(victim!);
    const forged = der.seq(
      si[der.CMS.signerInfo.version]!,
      si[der.CMS.signerInfo.sid]!,
      si[der.CMS.signerInfo.digestAlgorithm]!,
      attackerAttributes(NONCE),
      si[der.CMS.signerInfo.signatureAlgorithm]!,
      si[der.CMS.signerInfo.signature]!,
    );
    // encapContentInfo with the current nonce attached.
    kids[2] = der.seq(der.oid(der.CMS.oid.data), der.tlv(0xa0, der.octets(Buffer.from(NONCE))));
    return { signedDataKids: kids, forged, victim: victim! };
  }

  it('forged SignerInfo first, the victim’s old SignerInfo after it in the SET', async () => {
    const { signedDataKids: kids, forged, victim } = forgeryParts();
    kids[kids.length - 1] = der.set(forged, victim);
    await expectRefused(cmsProof(der.contentInfo(der.seq(...kids))));
  });

  it('forged SignerInfo alone, the victim’s SignerInfos as a trailing SET inside SignedData', async () => {
    // A parser that stops after signerInfos sees only the forged SignerInfo; a reader that takes
    // the last child of SignedData as signerInfos sees the victim's attributes, which the old
    // signature does cover.
    const { signedDataKids: kids, forged, victim } = forgeryParts();
    kids[kids.length - 1] = der.set(forged);
    await expectRefused(cmsProof(der.contentInfo(der.seq(...kids, der.set(victim)))));
    // The same with the bare SignerInfo as the trailing element.
    await expectRefused(cmsProof(der.contentInfo(der.seq(...kids, victim))));
  });

  it('forged SignerInfo alone, the victim’s SignerInfo as trailing bytes after the ContentInfo', async () => {
    const { signedDataKids: kids, forged, victim } = forgeryParts();
    kids[kids.length - 1] = der.set(forged);
    await expectRefused(cmsProof(Buffer.concat([der.contentInfo(der.seq(...kids)), victim])));
  });

  it('forged SignerInfo alone (old signature over attacker attributes)', async () => {
    const { signedDataKids: kids, forged } = forgeryParts();
    kids[kids.length - 1] = der.set(forged);
    await expectRefused(cmsProof(der.contentInfo(der.seq(...kids))));
  });

  it('signed attributes and signature reused from another signature, content swapped', async () => {
    const { signedDataKids: kids } = forgeryParts(); // victim's intact SignerInfo, new content
    await expectRefused(cmsProof(der.contentInfo(der.seq(...kids))));
    // The untouched old CMS, detached and attached, against the current nonce.
    await expectRefused(cmsProof(victimCms()));
    await expectRefused(cmsProof(pki.cms(ada, OLD_NONCE, { detached: true })));
  });

  it('two SignerInfos, both valid signers over the current nonce', async () => {
    const cms = pki.cms(ada, NONCE, { extraSigners: [bob] });
    expect(der.children(der.children(der.signedDataOf(cms)).at(-1)!)).toHaveLength(2);
    await expectRefused(cmsProof(cms));
  });

  it('a SignerInfo whose sid names another certificate of the bag than the signer’s', async () => {
    const cms = pki.cms(ada, NONCE, { certs: [bob] });
    const sd = der.signedDataOf(cms);
    const siIndex = der.signerInfosIndex(sd);
    // sid = issuerAndSerialNumber { issuer, serialNumber }: point the serial at Bob (same issuer).
    const bobSerial = der.children(der.children(bob.certDer)[0]!)[1]!;
    const forgedSd = der.replaceAt(sd, [siIndex, 0, der.CMS.signerInfo.sid, 1], () => bobSerial);
    await expectRefused(cmsProof(der.contentInfo(forgedSd)));
  });

  it('trailing bytes after the ContentInfo', async () => {
    const cms = pki.cms(ada, NONCE);
    for (const tail of [Buffer.from([0]), Buffer.from([0, 0]), Buffer.from([0x05, 0x00]), der.integer(1)]) {
      await expectRefused(cmsProof(Buffer.concat([cms, tail])));
    }
  });

  it('BER indefinite lengths', async () => {
    const cms = pki.cms(ada, NONCE);
    await expectRefused(cmsProof(der.indefinite(cms)));
    const sd = der.indefinite(der.signedDataOf(cms));
    await expectRefused(cmsProof(der.contentInfo(sd)));
  });

  it('the RSA-PSS algorithm identifier in the SignerInfo of an EC signer', async () => {
    const sd = der.signedDataOf(pki.cms(ada, NONCE));
    const sha256 = der.seq(der.oid(der.CMS.oid.sha256));
    const pss = der.seq(
      der.oid(der.CMS.oid.rsassaPss),
      der.seq(
        der.tlv(0xa0, sha256),
        der.tlv(0xa1, der.seq(der.oid(der.CMS.oid.mgf1), sha256)),
        der.tlv(0xa2, der.integer(32)),
      ),
    );
    const forged = der.replaceAt(sd, [der.signerInfosIndex(sd), 0, der.CMS.signerInfo.signatureAlgorithm], () => pss);
    await expectRefused(cmsProof(der.contentInfo(forged)));
  });

  it('more than 10 certificates in the CMS', async () => {
    const extras = Array.from({ length: 10 }, (_, i) => pki.leaf(ecRoot, `filler${i}`, `/CN=Filler ${i}`));
    await expect(accept(cmsProof(pki.cms(ada, NONCE, { certs: extras.slice(0, 9) })))).resolves.toBeDefined();
    await expectRefused(cmsProof(pki.cms(ada, NONCE, { certs: extras })));
  });
});

describe('malformed certificates', () => {
  /** Ada's certificate with a TBSCertificate edit, re-signed by the root so only the encoding is wrong. */
  function resignedWithTbs(edit: (tbsKids: Buffer[]) => Buffer[]): Buffer {
    const [tbs, sigAlg] = der.children(ada.certDer);
    const newTbs = der.rebuild(tbs!, edit(der.children(tbs!)));
    const signature = pki.openssl(['dgst', '-sha256', '-sign', ecRoot.keyPath], newTbs);
    return der.seq(newTbs, sigAlg!, der.tlv(0x03, Buffer.from([0]), signature));
  }

  const withCertificate = (certificate: string): EdsProof => ({
    certificate,
    signature: b64(pki.signRaw(ada, NONCE, 'ecdsa-der')),
  });

  it('the re-signing helper itself makes an acceptable certificate', async () => {
    const same = resignedWithTbs((kids) => kids);
    await expect(accept(withCertificate(b64(same)))).resolves.toMatchObject({ commonName: 'Ada' });
  });

  it('a trailing element inside TBSCertificate', async () => {
    const cert = resignedWithTbs((kids) => [...kids, der.integer(7)]);
    await expectRefused(withCertificate(b64(cert)));
    await expectRefused(withCertificate(derToPem(cert)));
  });

  it('a trailing element inside the Certificate SEQUENCE', async () => {
    const cert = der.seq(...der.children(ada.certDer), der.integer(7));
    await expectRefused(withCertificate(b64(cert)));
  });

  it('trailing bytes after the Certificate SEQUENCE', async () => {
    await expectRefused(withCertificate(b64(Buffer.concat([ada.certDer, der.integer(7)]))));
    await expectRefused(withCertificate(b64(Buffer.concat([ada.certDer, Buffer.from([0, 0])]))));
  });

  it('a certificate with BER indefinite length', async () => {
    await expectRefused(withCertificate(b64(der.indefinite(ada.certDer))));
  });
});

describe('RFC 5280 path validation', () => {
  it('an end-entity certificate (CA:FALSE) used as a CA', async () => {
    const ee = pki.leaf(ecRoot, 'ee', '/C=KZ/CN=Mallory/serialNumber=IIN660606700333');
    const leaf = pki.leaf(pki.asAuthority(ee), 'victim', ADA);
    await expectRefused(rawProof(leaf, { chain: [ee] }));
    await expectRefused(cmsProof(pki.cms(leaf, NONCE, { certs: [ee] })));
  });

  it('a CA without keyCertSign', async () => {
    const ca = pki.intermediate(ecRoot, 'no-kcs', '/C=KZ/CN=No KeyCertSign CA', {
      keyUsage: 'critical,digitalSignature,cRLSign',
    });
    const leaf = pki.leaf(ca, 'leaf', ADA);
    await expectRefused(rawProof(leaf, { chain: [ca] }));
  });

  it('a pathLenConstraint violation: root → CA pathlen:0 → CA → leaf', async () => {
    const sub = pki.intermediate(ecInt, 'sub', '/C=KZ/CN=Sub CA under pathlen 0');
    const leaf = pki.leaf(sub, 'leaf', ADA);
    await expectRefused(rawProof(leaf, { chain: [sub, ecInt] }));
    await expectRefused(cmsProof(pki.cms(leaf, NONCE, { certs: [sub, ecInt] })));
  });

  it('a leaf outside an intermediate’s directoryName constraints', async () => {
    const ca = pki.intermediate(ecRoot, 'nc-dir', '/C=KZ/O=Allowed/CN=Constrained CA', {
      extensions: ['nameConstraints=critical,permitted;dirName:nc_dir'],
      sections: { nc_dir: ['C=KZ', 'O=Allowed'] },
    });
    const inside = pki.leaf(ca, 'inside', '/C=KZ/O=Allowed/CN=Inside/serialNumber=IIN111111111111');
    await expect(accept(rawProof(inside, { chain: [ca] }))).resolves.toMatchObject({ commonName: 'Inside' });
    const outside = pki.leaf(ca, 'outside', '/C=KZ/O=Elsewhere/CN=Outside/serialNumber=IIN900101300123');
    await expectRefused(rawProof(outside, { chain: [ca] }));
  });

  it('a leaf outside an intermediate’s rfc822Name constraints', async () => {
    const ca = pki.intermediate(ecRoot, 'nc-mail', '/C=KZ/CN=Mail Constrained CA', {
      extensions: ['nameConstraints=critical,permitted;email:.allowed.example'],
    });
    const outside = pki.leaf(ca, 'outside', ADA, { extensions: ['subjectAltName=email:ada@evil.example'] });
    await expectRefused(rawProof(outside, { chain: [ca] }));
  });

  it('an unknown critical extension on the leaf and on an intermediate', async () => {
    const unknown = '1.2.3.4.5.6.7=critical,ASN1:UTF8String:x';
    const leaf = pki.leaf(ecRoot, 'crit', ADA, { extensions: [unknown] });
    await expectRefused(rawProof(leaf));
    await expectRefused(cmsProof(pki.cms(leaf, NONCE)));
    const ca = pki.intermediate(ecRoot, 'crit-ca', '/C=KZ/CN=Critical CA', { extensions: [unknown] });
    await expectRefused(rawProof(pki.leaf(ca, 'under-crit', ADA), { chain: [ca] }));
    // The same extension, not critical, is fine.
    const benign = pki.leaf(ecRoot, 'benign', ADA, { extensions: ['1.2.3.4.5.6.7=ASN1:UTF8String:x'] });
    await expect(accept(rawProof(benign))).resolves.toBeDefined();
  });

  it('a TLS-server-only and a code-signing-only leaf', async () => {
    for (const eku of ['serverAuth', 'codeSigning', 'critical,serverAuth']) {
      const leaf = pki.leaf(ecRoot, 'eku', ADA, { extendedKeyUsage: eku });
      await expectRefused(rawProof(leaf));
    }
  });

  it('a leaf whose keyUsage lacks digitalSignature', async () => {
    const leaf = pki.leaf(ecRoot, 'ku', ADA, { keyUsage: 'critical,keyEncipherment' });
    await expectRefused(rawProof(leaf));
  });

  it('an expired intermediate, an expired leaf and a leaf not yet valid', async () => {
    const expiredCa = pki.intermediate(ecRoot, 'expired-ca', '/C=KZ/CN=Expired CA', {
      notBefore: new Date(NOW.getTime() - 60 * DAY),
      notAfter: new Date(NOW.getTime() - DAY),
    });
    await expectRefused(rawProof(pki.leaf(expiredCa, 'under-expired', ADA), { chain: [expiredCa] }));
    // Under a root valid for the whole span, so that the leaf's own dates are what is checked.
    const oldRoot = pki.root('old-root', '/C=KZ/O=Old CA/CN=Old Root', {
      notBefore: new Date(NOW.getTime() - 90 * DAY),
    });
    const oldTrust = TrustStore.fromPem(oldRoot.certPem);
    const expired = pki.leaf(oldRoot, 'expired', ADA, {
      notBefore: new Date(NOW.getTime() - 60 * DAY),
      notAfter: new Date(NOW.getTime() - DAY),
    });
    await expectRefused(rawProof(expired), { trust: oldTrust });
    const future = pki.leaf(oldRoot, 'future', ADA, { notBefore: new Date(NOW.getTime() + DAY) });
    await expectRefused(rawProof(future), { trust: oldTrust });
    // The same leaves are fine inside their validity.
    await expect(
      accept(rawProof(expired), { trust: oldTrust, now: new Date(NOW.getTime() - 30 * DAY) }),
    ).resolves.toBeDefined();
    await expect(
      accept(rawProof(future), { trust: oldTrust, now: new Date(NOW.getTime() + 2 * DAY) }),
    ).resolves.toBeDefined();
  });

  it('a certificate of another, untrusted root with the same subject as a trusted one', async () => {
    const fake = pki.root('fake-root', '/C=KZ/O=Test National CA/CN=Test Root EC P-256');
    await expectRefused(rawProof(pki.leaf(fake, 'fake-ada', ADA)));
    await expectRefused(rawProof(pki.leaf(fake, 'fake-ada', ADA), { chain: [fake] }));
  });

  it('an RSA CA key with a 3,070-bit public exponent', async () => {
    const hugeE = pki.intermediate(ecRoot, 'huge-e', '/C=KZ/CN=Huge Exponent CA', {
      key: { path: pki.hugeExponentKey(3072, 3070) },
    });
    await expectRefused(rawProof(pki.leaf(hugeE, 'under-huge-e', ADA), { chain: [hugeE] }));
  });

  it('a 1024-bit RSA intermediate', async () => {
    const weak = pki.intermediate(ecRoot, 'rsa1024', '/C=KZ/CN=RSA 1024 CA', { key: 'rsa-1024' });
    await expectRefused(rawProof(pki.leaf(weak, 'under-1024', ADA), { chain: [weak] }));
  });

  it('a 1024-bit RSA trust anchor: the bundle is refused when loaded', () => {
    const weakRoot = pki.root('rsa1024-root', '/C=KZ/CN=RSA 1024 Root', { key: 'rsa-1024' });
    expect(() => TrustStore.fromPem(ecRoot.certPem + weakRoot.certPem)).toThrow(/certificate #2: .*key/);
  });
});

describe('revocation (CRLs made by `openssl ca -gencrl`)', () => {
  let crlRoot: Authority;
  let crlTrust: TrustStore;
  let revoked: Credential;
  let good: Credential;
  let crlBefore: Buffer;
  let crlAfter: Buffer;
  const ROOT_SKI = '5A:11:CE:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:01';
  const policy = (crl: Buffer | Buffer[], requireCrl = false): RevocationPolicy => ({
    crls: CrlStore.fromBytes(Array.isArray(crl) ? Buffer.from(crl.map((c) => derToPem(c, 'X509 CRL')).join('')) : crl),
    requireCrl,
  });

  beforeAll(() => {
    crlRoot = pki.root('crl-root', '/C=KZ/O=Revoking CA/CN=Test Root With CRL', { subjectKeyIdentifier: ROOT_SKI });
    crlTrust = TrustStore.fromPem(crlRoot.certPem + ecRoot.certPem);
    revoked = pki.leaf(crlRoot, 'revoked', ADA);
    good = pki.leaf(crlRoot, 'good', '/C=KZ/CN=Good/serialNumber=IIN121212121212');
    crlBefore = pki.crl(crlRoot);
    pki.revoke(crlRoot, revoked);
    crlAfter = pki.crl(crlRoot);
  }, 60_000);

  it('a revoked leaf is refused with "certificate revoked"', async () => {
    await expectRefused(rawProof(revoked), { trust: crlTrust, revocation: policy(crlAfter), reason: /revoked/ });
    await expectRefused(cmsProof(pki.cms(revoked, NONCE)), {
      trust: crlTrust,
      revocation: policy(crlAfter),
      reason: /revoked/,
    });
    // Several CRLs in one PEM: the matching one still applies.
    await expectRefused(rawProof(revoked), {
      trust: crlTrust,
      revocation: policy([pki.crl(ecRoot), crlAfter]),
      reason: /revoked/,
    });
  });

  it('a leaf not on its issuer’s current CRL is accepted, also with requireCrl', async () => {
    for (const requireCrl of [false, true]) {
      const id = await accept(rawProof(good), { trust: crlTrust, revocation: policy(crlAfter, requireCrl) });
      expect(id.commonName).toBe('Good');
    }
    await expect(accept(rawProof(revoked), { trust: crlTrust, revocation: policy(crlBefore) })).resolves.toBeDefined();
  });

  it('requireCrl fails closed when the issuer has no CRL, or only an expired one', async () => {
    await expectRefused(rawProof(ada), { trust: crlTrust, revocation: policy(crlAfter, true) });
    const stale = pki.crl(crlRoot, {
      lastUpdate: new Date(NOW.getTime() - 20 * DAY),
      nextUpdate: new Date(NOW.getTime() - 10 * DAY),
    });
    await expectRefused(rawProof(good), { trust: crlTrust, revocation: policy(stale, true) });
    await expect(
      accept(rawProof(ada), { trust: crlTrust, revocation: policy(crlAfter, false) }),
    ).resolves.toBeDefined();
  });

  it('a CRL signed by the wrong key (same issuer name and key id) is ignored', async () => {
    const impostor = pki.root('crl-impostor', '/C=KZ/O=Revoking CA/CN=Test Root With CRL', {
      subjectKeyIdentifier: ROOT_SKI,
    });
    pki.revoke(impostor, good);
    const forged = pki.crl(impostor);
    // Not trusted to revoke: Good stays valid …
    await expect(accept(rawProof(good), { trust: crlTrust, revocation: policy(forged) })).resolves.toBeDefined();
    // … and not trusted to vouch either: with requireCrl there is no current CRL.
    await expectRefused(rawProof(revoked), { trust: crlTrust, revocation: policy(forged, true) });
    await expectRefused(rawProof(good), { trust: crlTrust, revocation: policy(forged, true) });
  });

  it('CrlStore.fromFile picks up a changed file', async () => {
    const file = path.join(pki.dir, 'crls.der');
    writeFileSync(file, crlBefore);
    const revocation: RevocationPolicy = { crls: CrlStore.fromFile(file), requireCrl: true };
    await expect(accept(rawProof(revoked), { trust: crlTrust, revocation })).resolves.toBeDefined();
    writeFileSync(file, derToPem(crlAfter, 'X509 CRL'));
    const later = new Date(Date.now() + 5000);
    utimesSync(file, later, later);
    // The store may look at the file only every so often: give it a few seconds.
    const deadline = Date.now() + 5000;
    let refused: unknown = null;
    while (!refused && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      refused = await accept(rawProof(revoked), { trust: crlTrust, revocation }).then(
        () => null,
        (e: unknown) => e,
      );
    }
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).message).toMatch(/revoked/);
  });
});

describe('bounded work: no input blocks the event loop for 100 ms', () => {
  /**
   * Longest hold of the event loop (CPU ms of this thread between two turns of a 10 ms timer) while
   * `run` is pending and for a while after, so that work a refused request leaves behind counts
   * against that request. CPU time, not wall-clock: other test workers share the cores. The best of up
   * to three runs: a pause of the worker's own (a full garbage collection) comes once, work every time.
   */
  async function maxLoopDelayMs(run: () => Promise<unknown>): Promise<number> {
    return (await leastLoopHoldCpuMs(run, 100)).maxHoldMs;
  }

  async function expectRefusedQuickly(proof: EdsProof, trustStore: TrustStore = trust): Promise<number> {
    const delay = await maxLoopDelayMs(() => expectRefused(proof, { trust: trustStore }));
    expect(delay).toBeLessThan(100);
    return delay;
  }

  const UNTERMINATED = '-----BEGIN CERTIFICATE-----\n'.repeat(Math.ceil((260 * 1024) / 28));

  /** An attacker root with the trusted root's subject, and a leaf it issued. */
  let attackerRoot: Authority;
  let lookAlikes: Credential[];
  let lookAlikeLeaf: Credential;
  const ATTACKER_SKI = 'A7:7A:C4:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:01';

  beforeAll(async () => {
    attackerRoot = pki.root('attacker', '/C=KZ/O=Test National CA/CN=Test Root EC P-256', {
      subjectKeyIdentifier: ATTACKER_SKI,
    });
    lookAlikes = Array.from({ length: 10 }, (_, i) =>
      pki.intermediate(attackerRoot, `look-alike-${i}`, '/C=KZ/O=Test National CA/CN=Test Root EC P-256', {
        forcedPublicKeyPem: OpensslPki.fakeRsaPublicKey(3072, 3070),
        subjectKeyIdentifier: ATTACKER_SKI,
      }),
    );
    lookAlikeLeaf = pki.leaf(attackerRoot, 'look-alike-leaf', ADA);
    // Warm up the verifier so module loading does not count as event-loop delay.
    await accept(cmsProof(pki.cms(ada, NONCE)));
    await accept(rawProof(ada));
  }, 60_000);

  it('a 260 KB cms field of unterminated BEGIN lines', async () => {
    expect(UNTERMINATED.length).toBeGreaterThanOrEqual(260 * 1024);
    await expectRefusedQuickly({ cms: UNTERMINATED });
  });

  it('a 260 KB certificate field of unterminated BEGIN lines', async () => {
    await expectRefusedQuickly({ certificate: UNTERMINATED, signature: b64(pki.signRaw(ada, NONCE, 'ecdsa-der')) });
    await expectRefusedQuickly({
      certificate: ada.certPem + UNTERMINATED,
      signature: b64(pki.signRaw(ada, NONCE, 'ecdsa-der')),
    });
  });

  it('look-alike CAs (trusted root’s subject, 3,070-bit RSA exponents) in a CMS', async () => {
    await expectRefusedQuickly(cmsProof(pki.cms(lookAlikeLeaf, NONCE, { certs: lookAlikes.slice(0, 9) })));
    await expectRefusedQuickly(cmsProof(pki.cms(lookAlikeLeaf, NONCE, { certs: lookAlikes })));
  });

  it('look-alike CAs after the leaf in a PEM certificate field', async () => {
    await expectRefusedQuickly(rawProof(lookAlikeLeaf, { chain: lookAlikes.slice(0, 9) }));
  });

  it('an RSA 8192 look-alike intermediate in the bag', async () => {
    const big = pki.intermediate(attackerRoot, 'rsa8192', '/C=KZ/O=Test National CA/CN=Test Root EC P-256', {
      forcedPublicKeyPem: OpensslPki.fakeRsaPublicKey(8192, 17),
      subjectKeyIdentifier: ATTACKER_SKI,
    });
    await expectRefusedQuickly(cmsProof(pki.cms(lookAlikeLeaf, NONCE, { certs: [big] })));
  });

  it('the largest acceptable CMS (ten certificates) is verified without blocking either', async () => {
    const fillers = Array.from({ length: 9 }, (_, i) => pki.leaf(ecRoot, `bag${i}`, `/CN=Bag ${i}`));
    const cms = cmsProof(pki.cms(ada, NONCE, { certs: fillers }));
    let id: EdsIdentity | null = null;
    const delay = await maxLoopDelayMs(async () => {
      id = await accept(cms);
    });
    expect(id).toMatchObject({ commonName: 'Ada' });
    expect(delay).toBeLessThan(100);
  });

  it('10,000 nested SEQUENCEs as cms and as certificate', async () => {
    const nested = der.nestedSequences(10_000);
    await expectRefusedQuickly({ cms: b64(nested) });
    await expectRefusedQuickly({ certificate: b64(nested), signature: b64(pki.signRaw(ada, NONCE, 'ecdsa-der')) });
    await expectRefusedQuickly({ certificate: derToPem(nested), signature: b64(pki.signRaw(ada, NONCE, 'ecdsa-der')) });
  });
});
