import { readFileSync, statSync } from 'node:fs';
import { decodePemBlocks, isPem } from './pem';
import { edsInvalid, pkijs, sha256Hex, type ParsedCertificate } from './pki';
import { assertSameEncoding, parseStrictDer } from './strict-der';

/** A CRL file larger than this is refused at load: national CRLs run to a few MiB at most. */
const MAX_CRL_FILE_BYTES = 64 * 1024 * 1024;
/** How often the file's modification time is looked at. */
const RECHECK_MS = 1000;

interface LoadedCrl {
  crl: pkijs.CertificateRevocationList;
  sha256: string;
}

/** What revocation checking the login applies (EDS_CRL_FILE, EDS_REQUIRE_CRL). */
export interface RevocationPolicy {
  crls: CrlStore;
  /** Refuse a certificate whose issuer has no current CRL (fail closed). */
  requireCrl: boolean;
}

/**
 * Certificate revocation lists (EDS_CRL_FILE: PEM blocks or one DER CRL), re-read when the
 * file changes. A CRL counts only once its signature verifies against the certificate that
 * issued the certificate being checked, and only while it is current.
 */
export class CrlStore {
  private crls: LoadedCrl[];
  private mtimeMs = 0;
  private checkedAt = 0;
  /** `${crl sha256}:${issuer spki sha256}` → whether the CRL's signature verifies. */
  private readonly signatureChecks = new Map<string, Promise<boolean>>();

  private constructor(
    private readonly path: string | null,
    crls: LoadedCrl[],
  ) {
    this.crls = crls;
  }

  static fromBytes(data: Buffer): CrlStore {
    return new CrlStore(null, parseCrls(data));
  }

  /** Reads the file now (throwing on a bad file at start-up) and again whenever it changes. */
  static fromFile(path: string): CrlStore {
    const store = new CrlStore(path, []);
    store.reload(true);
    return store;
  }

  /** Re-reads the file when its modification time changed; a bad new file keeps the old lists. */
  private reload(initial = false): void {
    if (!this.path) return;
    const now = Date.now();
    if (!initial && now - this.checkedAt < RECHECK_MS) return;
    this.checkedAt = now;
    const stat = statSync(this.path, { throwIfNoEntry: false });
    if (!stat) {
      if (initial) throw new Error(`EDS_CRL_FILE ${this.path} does not exist`);
      return;
    }
    if (!initial && stat.mtimeMs === this.mtimeMs) return;
    try {
      if (stat.size > MAX_CRL_FILE_BYTES) throw new Error(`EDS_CRL_FILE ${this.path} is larger than 64 MiB`);
      this.crls = parseCrls(readFileSync(this.path));
      this.mtimeMs = stat.mtimeMs;
      this.signatureChecks.clear();
    } catch (e) {
      if (initial) throw e;
    }
  }

  /**
   * Throws EDS_INVALID "certificate revoked" when a current CRL of `issuer` lists `cert`; with
   * `requireCrl`, also when `issuer` has no current CRL.
   */
  async check(cert: ParsedCertificate, issuer: ParsedCertificate, now: Date, requireCrl: boolean): Promise<void> {
    this.reload();
    let current = false;
    for (const { crl, sha256 } of this.crls) {
      if (!crl.issuer.isEqual(cert.pkijs.issuer)) continue;
      if (crl.thisUpdate.value > now || (crl.nextUpdate && crl.nextUpdate.value < now)) continue;
      if (!(await this.verifiedBy(crl, sha256, issuer))) continue;
      current = true;
      if (crl.isCertificateRevoked(cert.pkijs)) throw edsInvalid('certificate revoked');
    }
    if (!current && requireCrl) throw edsInvalid('no current CRL for the certificate issuer');
  }

  private verifiedBy(
    crl: pkijs.CertificateRevocationList,
    sha256: string,
    issuer: ParsedCertificate,
  ): Promise<boolean> {
    const key = `${sha256}:${issuer.spkiSha256}`;
    let verdict = this.signatureChecks.get(key);
    if (!verdict) {
      verdict = crl.verify({ issuerCertificate: issuer.pkijs }).catch(() => false);
      this.signatureChecks.set(key, verdict);
    }
    return verdict;
  }
}

/** Every CRL of a PEM file (blocks labelled X509 CRL) or one DER CRL; each strict DER. */
function parseCrls(data: Buffer): LoadedCrl[] {
  const text = data.toString('latin1');
  const ders = isPem(text)
    ? decodePemBlocks(text)
        .filter((b) => b.label === 'X509 CRL')
        .map((b) => b.der)
    : [data];
  return ders.map((der, index) => {
    try {
      const view = new Uint8Array(der);
      const crl = new pkijs.CertificateRevocationList({ schema: parseStrictDer(view) });
      assertSameEncoding(view, crl.toSchema(true).toBER(false));
      return { crl, sha256: sha256Hex(view) };
    } catch {
      throw new Error(`EDS_CRL_FILE: CRL #${index + 1} is malformed`);
    }
  });
}
