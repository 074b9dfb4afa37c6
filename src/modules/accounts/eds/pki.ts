import 'reflect-metadata';
import { createHash, webcrypto as nodeWebcrypto, X509Certificate as NativeCertificate } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/**
 * node:crypto's WebCrypto, typed as the global `Crypto` that @peculiar/x509 is written against
 * (the two declarations differ only in key usages node adds, such as encapsulateBits).
 */
export const webcrypto = nodeWebcrypto as unknown as Crypto;
x509.cryptoProvider.set(webcrypto);

export { x509 };

/** OIDs used across the module. */
export const OID = {
  serialNumber: '2.5.4.5',
  keyUsage: '2.5.29.15',
  basicConstraints: '2.5.29.19',
} as const;

/** A certificate parsed once by @peculiar/x509 (names, extensions) and node:crypto (signature checks). */
export interface ParsedCertificate {
  readonly der: Buffer;
  readonly x509: x509.X509Certificate;
  readonly native: NativeCertificate;
  /** Hex SHA-256 of the DER encoding. */
  readonly sha256: string;
}

/** Parses a DER certificate with both parsers; throws if either refuses it. */
export function parseCertificateDer(der: Uint8Array): ParsedCertificate {
  const copy = Buffer.from(der);
  return {
    der: copy,
    // A fresh Uint8Array so the parser never sees bytes of a shared Buffer pool.
    x509: new x509.X509Certificate(new Uint8Array(copy)),
    native: new NativeCertificate(copy),
    sha256: sha256Hex(copy),
  };
}

/** Hex SHA-256 of some bytes. */
export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Strict base64 (or base64url) decoding: Buffer.from silently skips invalid characters,
 * which would turn garbage into "some bytes". Returns null on anything that is not base64.
 */
export function decodeBase64(input: string): Buffer | null {
  const compact = input.replace(/\s+/g, '');
  if (compact.length === 0 || compact.length % 4 === 1) return null;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) return null;
  const bytes = Buffer.from(compact.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length > 0 ? bytes : null;
}

/** One PEM block: its label (e.g. CERTIFICATE) and decoded body. */
export interface PemBlock {
  label: string;
  der: Buffer;
}

/** Extracts every PEM block from a text; blocks with a body that is not base64 are skipped. */
export function decodePemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  const re = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    // RFC 1421 style headers ("Proc-Type: ...") may precede the body; they are not base64.
    const body = m[2]
      .split(/\r?\n/)
      .filter((line) => !line.includes(':'))
      .join('');
    const der = decodeBase64(body);
    if (der) blocks.push({ label: m[1], der });
  }
  return blocks;
}

/** Whether a text looks like PEM armour rather than bare base64. */
export function isPem(text: string): boolean {
  return text.includes('-----BEGIN ');
}
