import { readFileSync } from 'node:fs';
import { assertAllowedKey } from './key-policy';
import { decodePemBlocks } from './pem';
import { parseCertificateDer, type ParsedCertificate } from './pki';

const CERTIFICATE_LABELS = new Set(['CERTIFICATE', 'X509 CERTIFICATE']);

/**
 * The CA certificates EDS logins must chain to. Every certificate of the bundle (roots and
 * intermediates alike) is a trust anchor: a path that reaches any of them is trusted, and is
 * followed up through the bundle to its root when the bundle holds it.
 */
export class TrustStore {
  private readonly fingerprints: Set<string>;

  private constructor(readonly certificates: readonly ParsedCertificate[]) {
    this.fingerprints = new Set(certificates.map((c) => c.sha256));
  }

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
        throw new Error(`EDS trust bundle: certificate #${index + 1} is malformed (not strict DER X.509)`);
      }
      try {
        assertAllowedKey(cert.native, 'ca');
      } catch (e) {
        throw new Error(`EDS trust bundle: certificate #${index + 1}: ${(e as Error).message}`);
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
    return this.fingerprints.has(cert.sha256);
  }
}
