import { readFileSync } from 'node:fs';
import { decodePemBlocks, parseCertificateDer, type ParsedCertificate } from './pki';

const CERTIFICATE_LABELS = new Set(['CERTIFICATE', 'X509 CERTIFICATE']);

/**
 * The CA certificates EDS logins must chain to. Every certificate of the bundle (roots and
 * intermediates alike) is a trust anchor: a path that reaches any of them is trusted.
 */
export class TrustStore {
  private constructor(readonly certificates: readonly ParsedCertificate[]) {}

  /** Parses all certificates of a PEM bundle; throws when there is none or one is malformed. */
  static fromPem(pem: string): TrustStore {
    const blocks = decodePemBlocks(pem).filter((b) => CERTIFICATE_LABELS.has(b.label));
    if (blocks.length === 0) throw new Error('EDS trust bundle contains no PEM certificate');
    const seen = new Set<string>();
    const certificates: ParsedCertificate[] = [];
    blocks.forEach((block, index) => {
      let cert: ParsedCertificate;
      try {
        cert = parseCertificateDer(block.der);
      } catch {
        // A half-readable bundle would silently drop a CA; fail loudly at start-up instead.
        throw new Error(`EDS trust bundle: certificate #${index + 1} is malformed`);
      }
      if (!seen.has(cert.sha256)) {
        seen.add(cert.sha256);
        certificates.push(cert);
      }
    });
    return new TrustStore(certificates);
  }

  /** Reads and parses a PEM bundle file. */
  static fromFile(path: string): TrustStore {
    return TrustStore.fromPem(readFileSync(path, 'utf8'));
  }

  /** Whether this exact certificate (by DER fingerprint) is in the bundle. */
  has(cert: ParsedCertificate): boolean {
    return this.certificates.some((c) => c.sha256 === cert.sha256);
  }
}
