import * as asn1js from 'asn1js';
import { AppError } from '../../../kernel/errors/app-error';
import { MAX_PROOF_CERTIFICATES } from './chain';
import { assertAllowedKey } from './key-policy';
import { decodeBase64, decodePemBlocks, isPem } from './pem';
import {
  edsInvalid,
  parseCertificateDer,
  pkijs,
  readNativeCertificate,
  yieldToEventLoop,
  type ParsedCertificate,
} from './pki';
import { assertSameEncoding, parseStrictDer } from './strict-der';

/*
 * CMS SignedData (RFC 5652) read and verified by pkijs, strictly: the whole ContentInfo must be
 * DER that pkijs re-encodes to the same bytes, so the SignerInfo whose signature is verified is
 * the only one there is, and its signed attributes are exactly the bytes the signature covers.
 */

const MAX_CMS_BYTES = 256 * 1024;

const ID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const ID_DATA = '1.2.840.113549.1.7.1';
const ID_CONTENT_TYPE = '1.2.840.113549.1.9.3';
const ID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';

const DIGEST_ALGORITHMS = new Set([
  '2.16.840.1.101.3.4.2.1', // SHA-256
  '2.16.840.1.101.3.4.2.2', // SHA-384
  '2.16.840.1.101.3.4.2.3', // SHA-512
]);

/** Signature algorithm OID → the public key type it needs. */
const SIGNATURE_KEY_TYPES: Readonly<Record<string, 'rsa' | 'ec'>> = {
  '1.2.840.113549.1.1.1': 'rsa', // rsaEncryption, as OpenSSL's cms -sign writes it
  '1.2.840.113549.1.1.10': 'rsa', // RSASSA-PSS
  '1.2.840.113549.1.1.11': 'rsa',
  '1.2.840.113549.1.1.12': 'rsa',
  '1.2.840.113549.1.1.13': 'rsa',
  '1.2.840.10045.4.3.2': 'ec',
  '1.2.840.10045.4.3.3': 'ec',
  '1.2.840.10045.4.3.4': 'ec',
};
const KEY_TYPES: Readonly<Record<string, 'rsa' | 'ec'>> = {
  '1.2.840.113549.1.1.1': 'rsa',
  '1.2.840.113549.1.1.10': 'rsa',
  '1.2.840.10045.2.1': 'ec',
};

const malformed = (): AppError => edsInvalid('malformed CMS');

/** A parsed CMS login proof; the signature is checked by `verifySignature` once the keys are. */
export interface CmsProof {
  signer: ParsedCertificate;
  /** The other certificates of the CMS, usable as (untrusted) intermediates. */
  certificates: ParsedCertificate[];
  verifySignature(): Promise<boolean>;
}

/**
 * Parses base64 (or PEM) CMS SignedData over `expectedContent`: strict DER, exactly one
 * SignerInfo, content type id-data, attached content (if any) equal to `expectedContent`,
 * at most ten certificates, the signer certificate among them.
 */
export async function parseCmsProof(input: unknown, expectedContent: Buffer): Promise<CmsProof> {
  if (typeof input !== 'string' || input.length > (MAX_CMS_BYTES * 4) / 3 + 4096) throw malformed();
  const der = isPem(input) ? (decodePemBlocks(input)[0]?.der ?? null) : decodeBase64(input);
  if (!der || der.length > MAX_CMS_BYTES) throw malformed();

  // Three passes over at most 256 KiB, with other requests let in between them.
  let signedData: pkijs.SignedData;
  try {
    const view = new Uint8Array(der);
    const schema = parseStrictDer(view);
    await yieldToEventLoop();
    await assertBagKeys(schema);
    const contentInfo = new pkijs.ContentInfo({ schema });
    if (contentInfo.contentType !== ID_SIGNED_DATA) throw malformed();
    signedData = new pkijs.SignedData({ schema: contentInfo.content });
    await yieldToEventLoop();
    const reencoded = new pkijs.ContentInfo({ contentType: ID_SIGNED_DATA, content: signedData.toSchema(true) });
    assertSameEncoding(view, reencoded.toSchema().toBER(false));
    await yieldToEventLoop();
  } catch {
    throw malformed();
  }

  if (signedData.signerInfos.length !== 1) throw edsInvalid('CMS must have exactly one signer');
  const signerInfo = signedData.signerInfos[0];
  if (signedData.encapContentInfo.eContentType !== ID_DATA) throw malformed();
  const eContent = signedData.encapContentInfo.eContent;
  if (eContent) {
    const attached = Buffer.from(eContent.valueBlock.valueHexView);
    if (!attached.equals(expectedContent)) throw edsInvalid('CMS content does not match the challenge');
  }
  if (!DIGEST_ALGORITHMS.has(signerInfo.digestAlgorithm.algorithmId)) {
    throw edsInvalid('CMS digest algorithm is not supported');
  }
  if (signerInfo.signedAttrs) assertSignedAttributes(signerInfo.signedAttrs);

  const certificates = await parseCmsCertificates(signedData, signerInfo.sid);
  const signer = certificates.find((c) => namesSigner(signerInfo.sid, c.pkijs));
  if (!signer) throw edsInvalid('CMS does not contain the signer certificate');
  assertAlgorithmFitsKey(signerInfo, signer);

  return {
    signer,
    certificates: certificates.filter((c) => c !== signer),
    verifySignature: () => verifySignerInfo(signedData, signer, expectedContent),
  };
}

/**
 * Checks the key of every certificate of the CMS with OpenSSL's fast parser, reading each
 * certificate's bytes from the asn1js tree, before PKI.js builds its objects: a bag of
 * certificates with costly keys costs one pass and is refused before any slower work. The
 * tree is ContentInfo → [0] → SignedData, whose [0] IMPLICIT element holds the certificates.
 */
async function assertBagKeys(contentInfo: asn1js.AsnType): Promise<void> {
  const children = (node: asn1js.AsnType | undefined): asn1js.AsnType[] => {
    const value = (node as asn1js.Constructed | undefined)?.valueBlock?.value;
    return Array.isArray(value) ? value : [];
  };
  const signedData = children(children(contentInfo)[1])[0];
  const bag = children(signedData).find((n) => n.idBlock.tagClass === 3 && n.idBlock.tagNumber === 0);
  const certificates = children(bag);
  if (certificates.length > MAX_PROOF_CERTIFICATES) throw edsInvalid('too many certificates in the proof');
  for (const cert of certificates) {
    // The role is not known yet: CA limits on every key but the signer's wider RSA range.
    assertAllowedKey(readNativeCertificate(cert.valueBeforeDecodeView), 'leaf');
    await yieldToEventLoop();
  }
}

/**
 * Exactly one contentType (id-data) and one messageDigest attribute, each with one value; the
 * digest itself is compared by pkijs during verification.
 */
function assertSignedAttributes(attrs: pkijs.SignedAndUnsignedAttributes): void {
  const types = attrs.attributes.map((a) => a.type);
  if (new Set(types).size !== types.length) throw malformed();
  const contentType = attrs.attributes.find((a) => a.type === ID_CONTENT_TYPE);
  const digest = attrs.attributes.find((a) => a.type === ID_MESSAGE_DIGEST);
  if (contentType?.values.length !== 1 || digest?.values.length !== 1) throw malformed();
  const value = contentType.values[0] as asn1js.AsnType;
  if (!(value instanceof asn1js.ObjectIdentifier) || value.valueBlock.toString() !== ID_DATA) throw malformed();
  if (!(digest.values[0] instanceof asn1js.OctetString)) throw malformed();
}

/**
 * The certificates of the CMS, each strict DER. Every key is checked first, with OpenSSL's
 * parser, so that a bag of certificates with costly keys is refused before any slower work.
 */
async function parseCmsCertificates(
  signedData: pkijs.SignedData,
  sid: pkijs.SignerInfo['sid'],
): Promise<ParsedCertificate[]> {
  const choices = signedData.certificates ?? [];
  if (choices.length > MAX_PROOF_CERTIFICATES) throw edsInvalid('too many certificates in the proof');
  const parsed: ParsedCertificate[] = [];
  for (const choice of choices) {
    if (!(choice instanceof pkijs.Certificate)) throw malformed(); // attribute certificates play no part
    const der = new Uint8Array(choice.toSchema().toBER(false));
    const native = readNativeCertificate(der);
    assertAllowedKey(native, namesSigner(sid, choice) ? 'leaf' : 'ca');
    parsed.push(parseCertificateDer(der, native));
    await yieldToEventLoop(); // a few milliseconds each: other requests run in between
  }
  return parsed;
}

/** The SignerInfo's sid: issuer and serial number, or the certificate's subjectKeyIdentifier. */
function namesSigner(sid: pkijs.SignerInfo['sid'], cert: pkijs.Certificate): boolean {
  if (sid instanceof pkijs.IssuerAndSerialNumber) {
    return cert.issuer.isEqual(sid.issuer) && cert.serialNumber.isEqual(sid.serialNumber);
  }
  const keyId = (sid as asn1js.Constructed | asn1js.OctetString).idBlock.isConstructed
    ? ((sid as asn1js.Constructed).valueBlock.value[0] as asn1js.OctetString).valueBlock.valueHexView
    : (sid as asn1js.OctetString).valueBlock.valueHexView;
  const ski = cert.extensions?.find((e) => e.extnID === '2.5.29.14')?.parsedValue as asn1js.OctetString | undefined;
  return !!ski && Buffer.from(ski.valueBlock.valueHexView).equals(Buffer.from(keyId));
}

/** An RSA algorithm with an EC key, or the reverse, is refused before anything is verified. */
function assertAlgorithmFitsKey(signerInfo: pkijs.SignerInfo, signer: ParsedCertificate): void {
  const needs = SIGNATURE_KEY_TYPES[signerInfo.signatureAlgorithm.algorithmId];
  if (!needs) throw edsInvalid('CMS signature algorithm is not supported');
  const has = KEY_TYPES[signer.pkijs.subjectPublicKeyInfo.algorithm.algorithmId];
  if (needs !== has) throw edsInvalid('CMS signature algorithm does not match the signer key');
}

/**
 * pkijs verifies the one SignerInfo: the messageDigest attribute against the content, then the
 * signature over the DER of exactly those signed attributes (or over the content without them).
 * The certificate it verified with must be the one whose path was validated.
 */
async function verifySignerInfo(
  signedData: pkijs.SignedData,
  signer: ParsedCertificate,
  content: Buffer,
): Promise<boolean> {
  try {
    const result = await signedData.verify({
      signer: 0,
      data: new Uint8Array(content).buffer,
      extendedMode: true,
      checkChain: false,
    });
    const used = result.signerCertificate;
    return result.signatureVerified === true && !!used && Buffer.from(used.toSchema().toBER(false)).equals(signer.der);
  } catch {
    return false;
  }
}
