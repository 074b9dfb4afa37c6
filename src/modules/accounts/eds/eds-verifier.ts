import { AppError } from '../../../errors/app-error';
import { assertLeafKeyUsage, assertWellFormedExtensions, assertWithinValidity, buildTrustedPath } from './chain';
import { parseCmsProof } from './cms';
import {
  OID,
  decodeBase64,
  decodePemBlocks,
  isPem,
  parseCertificateDer,
  sha256Hex,
  type ParsedCertificate,
} from './pki';
import { assertSupportedKey, verifyNonceSignature } from './signature';
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
}

/** A login proof: a certificate plus a raw signature over the nonce, or a CMS SignedData. */
export type EdsProof = { certificate: string; signature: string } | { cms: string };

const MAX_CERTIFICATE_CHARS = 64 * 1024;
const MAX_SIGNATURE_CHARS = 4 * 1024;

const edsInvalid = (reason: string): AppError => new AppError('EDS_INVALID', reason);

/**
 * Verifies an EDS login proof over `nonce` against the trust bundle and returns the signer's
 * identity, or throws AppError('EDS_INVALID', reason).
 */
export async function verifyEdsProof(
  proof: EdsProof,
  nonce: string,
  trust: TrustStore,
  now: Date = new Date(),
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
  let signatureIsValid: () => boolean;
  if (hasCms) {
    const cms = parseCmsProof(fields.cms, content);
    leaf = cms.signer;
    extra = cms.certificates;
    signatureIsValid = cms.verifySignature;
  } else {
    [leaf, ...extra] = parseCertificateInput(fields.certificate);
    const signature =
      typeof fields.signature === 'string' && fields.signature.length <= MAX_SIGNATURE_CHARS
        ? decodeBase64(fields.signature)
        : null;
    if (!signature) throw edsInvalid('malformed signature');
    const key = leaf.native.publicKey;
    signatureIsValid = () => verifyNonceSignature(key, content, signature);
  }

  assertWellFormedExtensions(leaf);
  assertSupportedKey(leaf.native.publicKey);
  assertWithinValidity(leaf, now);
  assertLeafKeyUsage(leaf);
  buildTrustedPath(leaf, trust, extra, now);
  if (!signatureIsValid()) throw edsInvalid('signature does not verify');

  return identityOf(leaf);
}

/**
 * A PEM (possibly with the rest of the chain after the signing certificate) or base64 DER
 * certificate. Returns the signing certificate first.
 */
function parseCertificateInput(input: unknown): [ParsedCertificate, ...ParsedCertificate[]] {
  if (typeof input !== 'string' || input.length > MAX_CERTIFICATE_CHARS) throw edsInvalid('malformed certificate');
  const ders = isPem(input)
    ? decodePemBlocks(input)
        .filter((b) => b.label === 'CERTIFICATE')
        .map((b) => b.der)
    : [decodeBase64(input)].filter((d): d is Buffer => d !== null);
  if (ders.length === 0) throw edsInvalid('malformed certificate');
  try {
    const [first, ...rest] = ders.map(parseCertificateDer);
    return [first, ...rest];
  } catch {
    throw edsInvalid('malformed certificate');
  }
}

/** Builds the identity: serialNumber (2.5.4.5) when present, else the SPKI hash. */
function identityOf(cert: ParsedCertificate): EdsIdentity {
  const name = cert.x509.subjectName;
  const serialNumber = name.getField(OID.serialNumber)[0]?.trim() || null;
  const commonName = name.getField('CN')[0] ?? null;
  const spki = new Uint8Array(cert.x509.publicKey.rawData);
  return {
    identityKey: serialNumber ? `sn:${serialNumber}` : `pk:${sha256Hex(spki)}`,
    serialNumber,
    commonName,
    subject: cert.x509.subject,
    certificateSha256: cert.sha256,
  };
}
