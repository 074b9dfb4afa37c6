import { createHash } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import {
  ContentInfo,
  MessageDigest,
  SignedData,
  id_contentType,
  id_data,
  id_messageDigest,
  id_signedData,
  type SignerIdentifier,
  type SignerInfo,
} from '@peculiar/asn1-cms';
import { RsaSaPssParams, id_RSASSA_PSS } from '@peculiar/asn1-rsa';
import { AppError } from '../../../errors/app-error';
import { firstSignerSignedAttributes } from './der';
import { decodeBase64, decodePemBlocks, isPem, parseCertificateDer, x509, type ParsedCertificate } from './pki';
import { verifyWithScheme, type HashName, type SignatureScheme } from './signature';

/*
 * CMS SignedData is read with @peculiar/asn1-cms rather than pkijs: pkijs 4 / asn1js 4 ship as
 * ES modules only, which this CommonJS service cannot load under Jest without changing the
 * shared Jest configuration. asn1-cms is the same vendor's typed CMS schema, already installed
 * with @peculiar/x509; the raw signed-attributes bytes come from ./der.
 */

const MAX_CMS_BYTES = 256 * 1024;
const MAX_CMS_CERTIFICATES = 10;

/** DER of the id-data OID, the only content type a login proof may carry. */
const ID_DATA_DER = Buffer.from('06092a864886f70d010701', 'hex');

const DIGEST_OIDS: Readonly<Record<string, HashName>> = {
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** Signature algorithm OIDs; `hash` absent means "the SignerInfo's digest algorithm". */
const SIGNATURE_OIDS: Readonly<Record<string, { scheme: SignatureScheme; hash?: HashName }>> = {
  '1.2.840.113549.1.1.1': { scheme: 'rsa-pkcs1' }, // rsaEncryption, used by many CMS signers
  '1.2.840.113549.1.1.11': { scheme: 'rsa-pkcs1', hash: 'sha256' },
  '1.2.840.113549.1.1.12': { scheme: 'rsa-pkcs1', hash: 'sha384' },
  '1.2.840.113549.1.1.13': { scheme: 'rsa-pkcs1', hash: 'sha512' },
  '1.2.840.10045.2.1': { scheme: 'ecdsa' }, // id-ecPublicKey
  '1.2.840.10045.4.3.2': { scheme: 'ecdsa', hash: 'sha256' },
  '1.2.840.10045.4.3.3': { scheme: 'ecdsa', hash: 'sha384' },
  '1.2.840.10045.4.3.4': { scheme: 'ecdsa', hash: 'sha512' },
};

const malformed = (): AppError => new AppError('EDS_INVALID', 'malformed CMS');

/** A parsed CMS login proof; the signature is checked by `verifySignature` once the chain is. */
export interface CmsProof {
  signer: ParsedCertificate;
  /** The other certificates of the CMS, usable as (untrusted) intermediates. */
  certificates: ParsedCertificate[];
  verifySignature(): boolean;
}

/**
 * Parses base64 (or PEM) CMS SignedData over `expectedContent`: exactly one signer, content type
 * id-data, attached content (if any) equal to `expectedContent`, the signer certificate inside.
 */
export function parseCmsProof(input: unknown, expectedContent: Buffer): CmsProof {
  if (typeof input !== 'string' || input.length > (MAX_CMS_BYTES * 4) / 3 + 1024) throw malformed();
  const der = isPem(input) ? (decodePemBlocks(input)[0]?.der ?? null) : decodeBase64(input);
  if (!der || der.length > MAX_CMS_BYTES) throw malformed();

  let signedData: SignedData;
  let signedAttrsRaw: Buffer | null;
  try {
    const contentInfo = AsnConvert.parse(der, ContentInfo);
    if (contentInfo.contentType !== id_signedData) throw malformed();
    signedData = AsnConvert.parse(contentInfo.content, SignedData);
    signedAttrsRaw = firstSignerSignedAttributes(der);
  } catch {
    throw malformed();
  }

  if (signedData.signerInfos.length !== 1) throw new AppError('EDS_INVALID', 'CMS must have exactly one signer');
  const signerInfo = signedData.signerInfos[0];
  if (!signerInfo.signedAttrs !== !signedAttrsRaw) throw malformed();
  const encap = signedData.encapContentInfo;
  if (encap.eContentType !== id_data) throw malformed();

  let content = expectedContent;
  if (encap.eContent) {
    // `any` is a constructed (BER) OCTET STRING, which DER-encoding signers never produce.
    if (!encap.eContent.single) throw malformed();
    content = Buffer.from(encap.eContent.single.buffer);
    if (!content.equals(expectedContent)) throw new AppError('EDS_INVALID', 'CMS content does not match the challenge');
  }

  const certificates = parseCmsCertificates(signedData);
  const signer = certificates.find((c) => matchesSignerId(signerInfo.sid, c));
  if (!signer) throw new AppError('EDS_INVALID', 'CMS does not contain the signer certificate');

  return {
    signer,
    certificates: certificates.filter((c) => c !== signer),
    verifySignature: () => verifySignerInfo(signerInfo, signedAttrsRaw, signer, content),
  };
}

function parseCmsCertificates(signedData: SignedData): ParsedCertificate[] {
  const choices = signedData.certificates ?? [];
  if (choices.length > MAX_CMS_CERTIFICATES) throw malformed();
  const parsed: ParsedCertificate[] = [];
  for (const choice of choices) {
    if (!choice.certificate) continue; // attribute certificates play no part here
    try {
      parsed.push(parseCertificateDer(new Uint8Array(AsnConvert.serialize(choice.certificate))));
    } catch {
      throw malformed();
    }
  }
  return parsed;
}

/** Serial numbers as unsigned hex without leading zeros (DER may prepend a 00 sign byte). */
const normalizeSerial = (hex: string): string => hex.toLowerCase().replace(/^(00)+(?=.)/, '');

function matchesSignerId(sid: SignerIdentifier, cert: ParsedCertificate): boolean {
  const ias = sid.issuerAndSerialNumber;
  if (ias) {
    const issuer = Buffer.from(AsnConvert.serialize(ias.issuer));
    return (
      issuer.equals(Buffer.from(cert.x509.issuerName.toArrayBuffer())) &&
      normalizeSerial(Buffer.from(ias.serialNumber).toString('hex')) === normalizeSerial(cert.native.serialNumber)
    );
  }
  if (sid.subjectKeyIdentifier) {
    const ski = cert.x509.getExtension(x509.SubjectKeyIdentifierExtension);
    return !!ski && ski.keyId.toLowerCase() === Buffer.from(sid.subjectKeyIdentifier.buffer).toString('hex');
  }
  return false;
}

/** Resolves the signature scheme and hash of a SignerInfo; null when unsupported. */
function signatureAlgorithmOf(
  signerInfo: SignerInfo,
  digest: HashName,
): { scheme: SignatureScheme; hash: HashName } | null {
  const { algorithm, parameters } = signerInfo.signatureAlgorithm;
  if (algorithm === id_RSASSA_PSS) {
    if (!parameters) return null; // absent parameters mean SHA-1
    const hash = DIGEST_OIDS[AsnConvert.parse(parameters, RsaSaPssParams).hashAlgorithm.algorithm];
    return hash ? { scheme: 'rsa-pss', hash } : null;
  }
  const known = SIGNATURE_OIDS[algorithm];
  return known ? { scheme: known.scheme, hash: known.hash ?? digest } : null;
}

/**
 * RFC 5652 §5.4: with signed attributes, the signature covers their DER encoding as a SET OF
 * (the raw bytes with the [0] IMPLICIT tag turned back into 0x31), and the messageDigest
 * attribute must equal the digest of the content; without them it covers the content itself.
 */
function verifySignerInfo(
  signerInfo: SignerInfo,
  signedAttrsRaw: Buffer | null,
  signer: ParsedCertificate,
  content: Buffer,
): boolean {
  const digest = DIGEST_OIDS[signerInfo.digestAlgorithm.algorithm];
  if (!digest) throw new AppError('EDS_INVALID', 'CMS digest algorithm is not supported');
  let algorithm: { scheme: SignatureScheme; hash: HashName } | null;
  try {
    algorithm = signatureAlgorithmOf(signerInfo, digest);
  } catch {
    throw malformed();
  }
  if (!algorithm) throw new AppError('EDS_INVALID', 'CMS signature algorithm is not supported');

  let signedBytes: Buffer = content;
  if (signerInfo.signedAttrs && signedAttrsRaw) {
    signedBytes = Buffer.concat([Buffer.from([0x31]), signedAttrsRaw.subarray(1)]);

    const byType = new Map<string, ArrayBuffer[]>();
    for (const attr of signerInfo.signedAttrs) {
      if (byType.has(attr.attrType)) throw malformed(); // each attribute type at most once
      byType.set(attr.attrType, attr.attrValues);
    }
    const contentType = byType.get(id_contentType);
    if (contentType?.length !== 1 || !Buffer.from(contentType[0]).equals(ID_DATA_DER)) throw malformed();
    const messageDigest = byType.get(id_messageDigest);
    if (messageDigest?.length !== 1) throw malformed();
    let claimed: Buffer;
    try {
      claimed = Buffer.from(AsnConvert.parse(messageDigest[0], MessageDigest).buffer);
    } catch {
      throw malformed();
    }
    if (!claimed.equals(createHash(digest).update(content).digest())) return false;
  }

  const signature = new Uint8Array(signerInfo.signature.buffer);
  return verifyWithScheme(signer.native.publicKey, algorithm.scheme, algorithm.hash, signedBytes, signature);
}
