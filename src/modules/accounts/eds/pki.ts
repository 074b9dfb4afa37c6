import 'reflect-metadata';
import { createHash, webcrypto as nodeWebcrypto, X509Certificate as NativeCertificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { AppError } from '../../../kernel/errors/app-error';
import { assertSameEncoding, parseStrictDer } from './strict-der';

/**
 * node:crypto's WebCrypto, typed as the global `Crypto` that @peculiar/x509 and pkijs are
 * written against (the two declarations differ only in key usages node adds).
 */
export const webcrypto = nodeWebcrypto as unknown as Crypto;
x509.cryptoProvider.set(webcrypto);
pkijs.setEngine('node', new pkijs.CryptoEngine({ name: 'node', crypto: webcrypto }));

export { x509, pkijs };

/** OIDs used across the module. */
export const OID = {
  serialNumber: '2.5.4.5',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  nameConstraints: '2.5.29.30',
  certificatePolicies: '2.5.29.32',
  policyMappings: '2.5.29.33',
  authorityKeyIdentifier: '2.5.29.35',
  policyConstraints: '2.5.29.36',
  extKeyUsage: '2.5.29.37',
  inhibitAnyPolicy: '2.5.29.54',
} as const;

/** A certificate read once: pkijs for validation, node:crypto for keys, @peculiar/x509 for names. */
export interface ParsedCertificate {
  readonly der: Buffer;
  readonly pkijs: pkijs.Certificate;
  /** Subject names for display, parsed on first use (only the signer's are ever read). */
  readonly x509: x509.X509Certificate;
  readonly native: NativeCertificate;
  /** Hex SHA-256 of the DER encoding. */
  readonly sha256: string;
  /** Hex SHA-256 of the SubjectPublicKeyInfo DER: the key, whatever certificate carries it. */
  readonly spkiSha256: string;
}

export const edsInvalid = (reason: string): AppError => new AppError('EDS_INVALID', reason);

/**
 * Reads a certificate with OpenSSL only (fast, C): enough to check its key before anything
 * slower is done with it. Throws EDS_INVALID when OpenSSL cannot read it.
 */
export function readNativeCertificate(der: Uint8Array): NativeCertificate {
  try {
    return new NativeCertificate(der);
  } catch {
    throw edsInvalid('malformed certificate');
  }
}

/**
 * Parses a certificate as strict DER: the bytes must be one DER element that pkijs re-encodes
 * to the same bytes, and every extension pkijs understands must re-encode to its own bytes too,
 * so no element can hide where one parser looks and another does not. Throws EDS_INVALID.
 */
export function parseCertificateDer(der: Uint8Array, native?: NativeCertificate): ParsedCertificate {
  const copy = Buffer.from(der);
  try {
    const view = new Uint8Array(copy);
    const cert = new pkijs.Certificate({ schema: parseStrictDer(view) });
    assertSameEncoding(view, cert.toSchema(true).toBER(false));
    for (const ext of cert.extensions ?? []) assertStrictExtension(ext);
    const spki = new Uint8Array(cert.subjectPublicKeyInfo.toSchema().toBER(false));
    let names: x509.X509Certificate | undefined;
    return {
      der: copy,
      pkijs: cert,
      get x509() {
        // A fresh Uint8Array so the parser never sees bytes of a shared Buffer pool.
        names ??= new x509.X509Certificate(new Uint8Array(copy));
        return names;
      },
      native: native ?? new NativeCertificate(copy),
      sha256: sha256Hex(copy),
      spkiSha256: sha256Hex(spki),
    };
  } catch (e) {
    if (e instanceof AppError) throw e;
    throw edsInvalid('malformed certificate');
  }
}

/** An extension's value is DER too, and what pkijs decoded from it must re-encode to it. */
function assertStrictExtension(ext: pkijs.Extension): void {
  const raw = ext.extnValue.valueBlock.valueHexView;
  parseStrictDer(raw);
  const decoded = ext.parsedValue as { toSchema?: () => asn1js.AsnType } | asn1js.AsnType | undefined;
  if (decoded === undefined) return; // an extension pkijs does not know: opaque unless critical
  const schema = 'toSchema' in decoded && typeof decoded.toSchema === 'function' ? decoded.toSchema() : decoded;
  assertSameEncoding(raw, (schema as asn1js.AsnType).toBER(false));
}

/** Lets other callbacks run between slices of synchronous parsing. */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Hex SHA-256 of some bytes. */
export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The extension with this OID, if present (a duplicate is refused by assertWellFormedExtensions). */
export function extensionOf(cert: ParsedCertificate, oid: string): pkijs.Extension | undefined {
  return cert.pkijs.extensions?.find((e) => e.extnID === oid);
}
