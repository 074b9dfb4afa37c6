import { assertExtensions, assertWithinValidity, MAX_PROOF_CERTIFICATES, validatePath } from './chain';
import { parseCmsProof } from './cms';
import { assertAllowedKey } from './key-policy';
import type { RevocationPolicy } from './crl-store';
import { decodeBase64, decodePemBlocks, isPem } from './pem';
import {
  OID,
  edsInvalid,
  parseCertificateDer,
  readNativeCertificate,
  yieldToEventLoop,
  type ParsedCertificate,
} from './pki';
import { verifyNonceSignature } from './signature';
import type { TrustStore } from './trust-store';

/** Who signed the login nonce, as established from a verified certificate. */
export interface EdsIdentity {
  /** 'sn:<serialNumber>' when the subject has a serialNumber (2.5.4.5), else 'pk:<sha256 hex of SPKI>'. */
  identityKey: string;
  serialNumber: string | null;
  commonName: string | null;
  /** Subject DN, RFC 4514 style, e.g. 'CN=Ada Lovelace, 2.5.4.5=IIN123456789012'. */
  subject: string;
  /** Hex SHA-256 of the certificate DER. */
  certificateSha256: string;
  /** Hex SHA-256 of the trust anchor's SubjectPublicKeyInfo: the root the login chained to. */
  trustAnchor: string;
}

/** A login proof: a certificate plus a raw signature over the nonce, or a CMS SignedData. */
export type EdsProof = { certificate: string; signature: string } | { cms: string };

export type { RevocationPolicy };

const MAX_CERTIFICATE_CHARS = 64 * 1024;
const MAX_SIGNATURE_CHARS = 4 * 1024;

/**
 * Verifies an EDS login proof over `nonce` against the trust bundle and returns the signer's
 * identity, or throws AppError('EDS_INVALID', reason). Cheap checks come first: sizes, strict
 * DER, the keys of every certificate; signatures are verified only with keys of bounded cost.
 */
export async function verifyEdsProof(
  proof: EdsProof,
  nonce: string,
  trust: TrustStore,
  now: Date = new Date(),
  revocation?: RevocationPolicy,
): Promise<EdsIdentity> {
  if (typeof nonce !== 'string' || nonce.length === 0) throw edsInvalid('challenge is empty');
  const content = Buffer.from(nonce, 'utf8');

  // The body comes from the network: check the shape at run time whatever the static type says.
  const fields = proof as Partial<Record<'certificate' | 'signature' | 'cms', unknown>>;
  const hasCms = fields.cms !== undefined;
  const hasPair = fields.certificate !== undefined || fields.signature !== undefined;
  if (hasCms === hasPair) throw edsInvalid('provide either certificate and signature, or cms');

  let leaf: ParsedCertificate;
  let extra: ParsedCertificate[];
  let signatureIsValid: () => Promise<boolean>;
  if (hasCms) {
    const cms = await parseCmsProof(fields.cms, content);
    leaf = cms.signer;
    extra = cms.certificates;
    signatureIsValid = cms.verifySignature;
  } else {
    [leaf, ...extra] = await parseCertificateInput(fields.certificate);
    const signature =
      typeof fields.signature === 'string' && fields.signature.length <= MAX_SIGNATURE_CHARS
        ? decodeBase64(fields.signature)
        : null;
    if (!signature) throw edsInvalid('malformed signature');
    const key = leaf.native.publicKey;
    signatureIsValid = () => Promise.resolve(verifyNonceSignature(key, content, signature));
  }

  assertExtensions(leaf, 'leaf');
  assertWithinValidity(leaf, now, 'leaf');
  const path = await validatePath(leaf, trust, extra, now);
  if (revocation) {
    for (let i = 0; i + 1 < path.length; i++) {
      await revocation.crls.check(path[i], path[i + 1], now, revocation.requireCrl);
    }
  }
  if (!(await signatureIsValid())) throw edsInvalid('signature does not verify');

  return identityOf(leaf, path[path.length - 1]);
}

/**
 * A PEM (possibly with the rest of the chain after the signing certificate) or base64 DER
 * certificate. Returns the signing certificate first.
 */
async function parseCertificateInput(input: unknown): Promise<[ParsedCertificate, ...ParsedCertificate[]]> {
  if (typeof input !== 'string' || input.length > MAX_CERTIFICATE_CHARS) throw edsInvalid('malformed certificate');
  const ders = isPem(input)
    ? decodePemBlocks(input)
        .filter((b) => b.label === 'CERTIFICATE')
        .map((b) => b.der)
    : [decodeBase64(input)].filter((d): d is Buffer => d !== null);
  if (ders.length === 0) throw edsInvalid('malformed certificate');
  if (ders.length > MAX_PROOF_CERTIFICATES) throw edsInvalid('too many certificates in the proof');
  // Every key is checked with OpenSSL's fast parser before any slower parsing or verification.
  const natives = ders.map((der, i) => {
    const native = readNativeCertificate(der);
    assertAllowedKey(native, i === 0 ? 'leaf' : 'ca');
    return native;
  });
  const parsed: ParsedCertificate[] = [];
  for (const [i, der] of ders.entries()) {
    if (i > 0) await yieldToEventLoop(); // a few milliseconds each: other requests run in between
    parsed.push(parseCertificateDer(der, natives[i]));
  }
  const [first, ...rest] = parsed;
  return [first!, ...rest];
}

/** Builds the identity: serialNumber (2.5.4.5) when present, else the SPKI hash. */
function identityOf(cert: ParsedCertificate, anchor: ParsedCertificate): EdsIdentity {
  const name = cert.x509.subjectName;
  const serialNumber = name.getField(OID.serialNumber)[0]?.trim() || null;
  const commonName = name.getField('CN')[0] ?? null;
  return {
    identityKey: serialNumber ? `sn:${serialNumber}` : `pk:${cert.spkiSha256}`,
    serialNumber,
    commonName,
    subject: cert.x509.subject,
    certificateSha256: cert.sha256,
    trustAnchor: anchor.spkiSha256,
  };
}
