import { constants, createHash, createPrivateKey, randomBytes, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { AlgorithmIdentifier, Certificate } from '@peculiar/asn1-x509';
import {
  Attribute,
  CertificateChoices,
  CertificateSet,
  CMSVersion,
  ContentInfo,
  DigestAlgorithmIdentifiers,
  EncapsulatedContent,
  EncapsulatedContentInfo,
  IssuerAndSerialNumber,
  SignedData,
  SignerIdentifier,
  SignerInfo,
  SignerInfos,
  id_contentType,
  id_data,
  id_messageDigest,
  id_signedData,
} from '@peculiar/asn1-cms';
import { RsaSaPssParams, id_RSASSA_PSS, id_mgf1, id_sha256 } from '@peculiar/asn1-rsa';
import { webcrypto, x509 } from './pki';

/*
 * Development PKI: a local CA for zero-config use and tests, certificates issued by it, and the
 * client side of a login (signing the nonce raw or as CMS). Never used to verify anything.
 */

/** A CA certificate and its PKCS#8 private key, both PEM. */
export interface DevCa {
  certificatePem: string;
  privateKeyPem: string;
}

export type KeyAlgorithm = 'RSA' | 'RSA-PSS' | 'ECDSA-P256' | 'ECDSA-P384';

export interface IssueOptions {
  commonName: string;
  /** The 2.5.4.5 subject attribute; default none. */
  serialNumber?: string;
  /** Default 'ECDSA-P256'. */
  algorithm?: KeyAlgorithm;
  /** Default now − 1 minute. */
  notBefore?: Date;
  /** Default now + 1 year. */
  notAfter?: Date;
  /** Default true; false issues a certificate whose keyUsage is only keyEncipherment. */
  keyUsageDigitalSignature?: boolean;
  /** Issue a CA certificate (to build intermediates in tests). */
  isCa?: boolean;
}

/** An issued certificate with its PKCS#8 private key, both PEM. */
export interface DevCredential {
  certificatePem: string;
  privateKeyPem: string;
  algorithm: KeyAlgorithm;
}

const DEFAULT_CA_NAME = 'QBFT DevPortal Development CA';
const CA_LIFETIME_YEARS = 10;
const CA_CERT_FILE = 'dev-ca.crt.pem';
const CA_KEY_FILE = 'dev-ca.key.pem';

const RSA_PUBLIC_EXPONENT = new Uint8Array([1, 0, 1]);

/** WebCrypto key generation parameters and the matching certificate signing algorithm. */
function keyParams(algorithm: KeyAlgorithm): {
  generate: RsaHashedKeyGenParams | EcKeyGenParams;
  signing: Algorithm | EcdsaParams;
} {
  switch (algorithm) {
    case 'RSA':
    case 'RSA-PSS': {
      const name = algorithm === 'RSA' ? 'RSASSA-PKCS1-v1_5' : 'RSA-PSS';
      const generate = { name, modulusLength: 2048, publicExponent: RSA_PUBLIC_EXPONENT, hash: 'SHA-256' };
      // Certificates are always signed PKCS#1 v1.5; 'RSA-PSS' is about how the holder signs nonces.
      return { generate, signing: { name: 'RSASSA-PKCS1-v1_5' } };
    }
    case 'ECDSA-P256':
      return {
        generate: { name: 'ECDSA', namedCurve: 'P-256' },
        signing: { name: 'ECDSA', hash: 'SHA-256' } as EcdsaParams,
      };
    case 'ECDSA-P384':
      return {
        generate: { name: 'ECDSA', namedCurve: 'P-384' },
        signing: { name: 'ECDSA', hash: 'SHA-384' } as EcdsaParams,
      };
  }
}

async function generateKeys(algorithm: KeyAlgorithm): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(keyParams(algorithm).generate, true, [
    'sign',
    'verify',
  ]) as Promise<CryptoKeyPair>;
}

async function privateKeyToPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

/** Which KeyAlgorithm a certificate's key is, for re-importing an issuer's private key. */
function algorithmOfCertificate(cert: x509.X509Certificate): KeyAlgorithm {
  const alg = cert.publicKey.algorithm as Algorithm & { namedCurve?: string };
  if (alg.name === 'ECDSA' || alg.name === 'ECDH') {
    if (alg.namedCurve === 'P-256') return 'ECDSA-P256';
    if (alg.namedCurve === 'P-384') return 'ECDSA-P384';
    throw new Error(`unsupported issuer curve ${alg.namedCurve ?? '?'}`);
  }
  if (alg.name === 'RSASSA-PKCS1-v1_5' || alg.name === 'RSA-PSS' || alg.name === 'RSA-OAEP') return 'RSA';
  throw new Error(`unsupported issuer key algorithm ${alg.name}`);
}

async function importIssuerKey(
  issuer: DevCa,
  cert: x509.X509Certificate,
): Promise<{ key: CryptoKey; signing: Algorithm }> {
  const algorithm = algorithmOfCertificate(cert);
  const { generate, signing } = keyParams(algorithm);
  // Issuers always sign certificates PKCS#1 v1.5 (see keyParams), so import the key for that.
  const importAlg = algorithm === 'RSA' ? { ...generate, name: 'RSASSA-PKCS1-v1_5' } : generate;
  const der = x509.PemConverter.decodeFirst(issuer.privateKeyPem);
  const key = await webcrypto.subtle.importKey('pkcs8', der, importAlg, false, ['sign']);
  return { key, signing };
}

/** Creates a self-signed development CA (ECDSA P-256 by default), valid 10 years. */
export async function createDevCa(
  opts: { commonName?: string; algorithm?: 'RSA' | 'ECDSA-P256' } = {},
): Promise<DevCa> {
  const algorithm = opts.algorithm ?? 'ECDSA-P256';
  const keys = await generateKeys(algorithm);
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore);
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CA_LIFETIME_YEARS);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: [{ CN: [opts.commonName ?? DEFAULT_CA_NAME] }],
    notBefore,
    notAfter,
    keys,
    signingAlgorithm: keyParams(algorithm).signing,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certificatePem: cert.toString('pem'), privateKeyPem: await privateKeyToPem(keys.privateKey) };
}

/**
 * Loads the development CA from `<dataDir>/eds`, creating it on first use. The key file is
 * written with mode 0600. Returns the CA and the path of its certificate (the trust bundle).
 */
export async function loadOrCreateDevCa(dataDir: string): Promise<DevCa & { bundlePath: string }> {
  const dir = join(dataDir, 'eds');
  const certPath = join(dir, CA_CERT_FILE);
  const keyPath = join(dir, CA_KEY_FILE);
  const load = (): DevCa & { bundlePath: string } => ({
    certificatePem: readFileSync(certPath, 'utf8'),
    privateKeyPem: readFileSync(keyPath, 'utf8'),
    bundlePath: certPath,
  });

  const haveCert = existsSync(certPath);
  const haveKey = existsSync(keyPath);
  if (haveCert && haveKey) return load();
  if (haveCert !== haveKey) {
    // Silently replacing half a CA would invalidate every certificate issued so far.
    throw new Error(
      `development CA in ${dir} is incomplete (${haveCert ? CA_KEY_FILE : CA_CERT_FILE} is missing); delete the folder to recreate it`,
    );
  }

  const ca = await createDevCa();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    // 'wx' fails if another process created the CA meanwhile; the key goes first so a cert
    // never exists without its key.
    writeFileSync(keyPath, ca.privateKeyPem, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return waitForCertificate(certPath, load);
    throw err;
  }
  writeFileSync(certPath, ca.certificatePem, { mode: 0o644, flag: 'wx' });
  return { ...ca, bundlePath: certPath };
}

/** Another process is creating the CA: give it a moment to write the certificate. */
async function waitForCertificate<T>(certPath: string, load: () => T): Promise<T> {
  for (let i = 0; i < 50 && !existsSync(certPath); i++) await new Promise((r) => setTimeout(r, 100));
  return load();
}

/** A positive random 16-byte serial number, hex. */
function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  bytes[0] |= 0x01; // no leading zero byte, so the hex form is canonical
  return bytes.toString('hex');
}

/** Issues a certificate signed by `issuer` (a DevCa, or a CA credential from issueCertificate). */
export async function issueCertificate(issuer: DevCa, opts: IssueOptions): Promise<DevCredential> {
  const algorithm = opts.algorithm ?? 'ECDSA-P256';
  const issuerCert = new x509.X509Certificate(issuer.certificatePem);
  const { key: signingKey, signing } = await importIssuerKey(issuer, issuerCert);
  const keys = await generateKeys(algorithm);

  const notBefore = opts.notBefore ?? new Date(Date.now() - 60_000);
  const notAfter = opts.notAfter ?? new Date(Date.now() + 365 * 24 * 3600_000);
  const F = x509.KeyUsageFlags;
  const usages = opts.isCa
    ? F.keyCertSign | F.cRLSign | F.digitalSignature
    : opts.keyUsageDigitalSignature === false
      ? F.keyEncipherment
      : F.digitalSignature | F.nonRepudiation;

  // '2.5.4.5' rather than 'SERIALNUMBER': @peculiar/x509 does not know the short name.
  const subject: x509.JsonName = [{ CN: [opts.commonName] }];
  if (opts.serialNumber !== undefined) subject.push({ [`2.5.4.5`]: [opts.serialNumber] });

  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject,
    issuer: issuerCert.subjectName,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey,
    signingAlgorithm: signing,
    extensions: [
      new x509.BasicConstraintsExtension(opts.isCa === true, undefined, true),
      new x509.KeyUsagesExtension(usages, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(issuerCert, false),
    ],
  });
  return { certificatePem: cert.toString('pem'), privateKeyPem: await privateKeyToPem(keys.privateKey), algorithm };
}

/** Default PSS salt length: the hash length, as most tokens do. */
const DEFAULT_PSS_SALT = 32;

/** Signs bytes with SHA-256 the way the credential's algorithm prescribes. */
function signBytes(
  cred: DevCredential,
  key: KeyObject,
  data: Uint8Array,
  opts: { ecdsaEncoding?: 'der' | 'p1363'; pssSaltLength?: number },
): Buffer {
  switch (cred.algorithm) {
    case 'RSA':
      return cryptoSign('sha256', data, { key, padding: constants.RSA_PKCS1_PADDING });
    case 'RSA-PSS':
      return cryptoSign('sha256', data, {
        key,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: opts.pssSaltLength ?? DEFAULT_PSS_SALT,
      });
    case 'ECDSA-P256':
    case 'ECDSA-P384':
      return cryptoSign('sha256', data, { key, dsaEncoding: opts.ecdsaEncoding === 'p1363' ? 'ieee-p1363' : 'der' });
  }
}

/**
 * Signs the UTF-8 nonce with SHA-256 (RSA PKCS#1 v1.5, RSA-PSS or ECDSA per the credential)
 * and returns the base64 signature. `pssSaltLength` (default 32) only applies to RSA-PSS.
 */
export async function signNonce(
  cred: DevCredential,
  nonce: string,
  opts: { ecdsaEncoding?: 'der' | 'p1363'; pssSaltLength?: number } = {},
): Promise<string> {
  return signBytes(cred, createPrivateKey(cred.privateKeyPem), Buffer.from(nonce, 'utf8'), opts).toString('base64');
}

/** The SignerInfo signature algorithm for a credential (hash always SHA-256). */
function cmsSignatureAlgorithm(cred: DevCredential): AlgorithmIdentifier {
  switch (cred.algorithm) {
    case 'RSA':
      return new AlgorithmIdentifier({ algorithm: '1.2.840.113549.1.1.11', parameters: null });
    case 'RSA-PSS': {
      const sha256 = new AlgorithmIdentifier({ algorithm: id_sha256 });
      const params = new RsaSaPssParams({
        hashAlgorithm: sha256,
        maskGenAlgorithm: new AlgorithmIdentifier({ algorithm: id_mgf1, parameters: AsnConvert.serialize(sha256) }),
        saltLength: DEFAULT_PSS_SALT,
      });
      return new AlgorithmIdentifier({ algorithm: id_RSASSA_PSS, parameters: AsnConvert.serialize(params) });
    }
    case 'ECDSA-P256':
    case 'ECDSA-P384':
      return new AlgorithmIdentifier({ algorithm: '1.2.840.10045.4.3.2' });
  }
}

/** DER of the id-data OID, the value of the contentType attribute. */
const ID_DATA_OID_DER = new Uint8Array(Buffer.from('06092a864886f70d010701', 'hex'));

/** DER length octets. */
function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n >>= 8) bytes.unshift(n & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/**
 * Signs the nonce as CMS SignedData (SHA-256, signed attributes contentType + messageDigest,
 * the signer certificate included), attached by default or detached; returns base64 DER.
 */
export async function signNonceCms(
  cred: DevCredential,
  nonce: string,
  opts: { detached?: boolean } = {},
): Promise<string> {
  const content = Buffer.from(nonce, 'utf8');
  const certificate = AsnConvert.parse(x509.PemConverter.decodeFirst(cred.certificatePem), Certificate);
  const sha256 = new AlgorithmIdentifier({ algorithm: id_sha256 });

  // DER orders SET OF elements by their encodings; the signature covers exactly that SET.
  const attributes = [
    new Attribute({ attrType: id_contentType, attrValues: [ID_DATA_OID_DER.slice().buffer] }),
    new Attribute({
      attrType: id_messageDigest,
      attrValues: [AsnConvert.serialize(new OctetString(createHash('sha256').update(content).digest()))],
    }),
  ]
    .map((attr) => ({ attr, der: Buffer.from(AsnConvert.serialize(attr)) }))
    .sort((a, b) => Buffer.compare(a.der, b.der));
  const body = Buffer.concat(attributes.map((a) => a.der));
  const signedAttrsDer = Buffer.concat([Buffer.from([0x31]), derLength(body.length), body]);
  const signature = signBytes(cred, createPrivateKey(cred.privateKeyPem), signedAttrsDer, {});

  const signerInfo = new SignerInfo({
    version: CMSVersion.v1,
    sid: new SignerIdentifier({
      issuerAndSerialNumber: new IssuerAndSerialNumber({
        issuer: certificate.tbsCertificate.issuer,
        serialNumber: certificate.tbsCertificate.serialNumber,
      }),
    }),
    digestAlgorithm: sha256,
    signedAttrs: attributes.map((a) => a.attr),
    signatureAlgorithm: cmsSignatureAlgorithm(cred),
    signature: new OctetString(signature),
  });
  const signedData = new SignedData({
    version: CMSVersion.v1,
    digestAlgorithms: new DigestAlgorithmIdentifiers([sha256]),
    encapContentInfo: new EncapsulatedContentInfo({
      eContentType: id_data,
      eContent: opts.detached ? undefined : new EncapsulatedContent({ single: new OctetString(content) }),
    }),
    certificates: new CertificateSet([new CertificateChoices({ certificate })]),
    signerInfos: new SignerInfos([signerInfo]),
  });
  const contentInfo = new ContentInfo({ contentType: id_signedData, content: AsnConvert.serialize(signedData) });
  return Buffer.from(AsnConvert.serialize(contentInfo)).toString('base64');
}
