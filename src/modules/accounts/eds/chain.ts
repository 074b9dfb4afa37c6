import { AppError } from '../../../errors/app-error';
import { OID, x509, type ParsedCertificate } from './pki';
import type { TrustStore } from './trust-store';

/** Longest accepted path, leaf and anchor included; real national PKIs use 2–4. */
const MAX_PATH_LENGTH = 6;
/** Caps the search so a proof stuffed with mutually-signed look-alikes cannot burn CPU. */
const MAX_SEARCH_STEPS = 200;
/** How many certificates a proof may bring along as intermediates. */
export const MAX_EXTRA_CERTIFICATES = 10;

const edsInvalid = (reason: string): AppError => new AppError('EDS_INVALID', reason);

/** Throws unless `now` lies within the certificate's validity period. */
export function assertWithinValidity(cert: ParsedCertificate, now: Date): void {
  if (now.getTime() < cert.x509.notBefore.getTime()) throw edsInvalid('certificate is not yet valid');
  if (now.getTime() > cert.x509.notAfter.getTime()) throw edsInvalid('certificate has expired');
}

function isWithinValidity(cert: ParsedCertificate, now: Date): boolean {
  const t = now.getTime();
  return t >= cert.x509.notBefore.getTime() && t <= cert.x509.notAfter.getTime();
}

/**
 * The extension with this OID decoded as `type`; null when absent. Looked up by OID and then
 * type-checked, so an extension the library failed to decode is "malformed", never "absent".
 */
function extensionOf<T extends x509.Extension>(
  cert: ParsedCertificate,
  oid: string,
  type: abstract new (...args: never[]) => T,
): T | null {
  const ext = cert.x509.getExtension(oid);
  if (ext === null) return null;
  if (!(ext instanceof type)) throw edsInvalid('malformed certificate');
  return ext;
}

/** The keyUsage extension (2.5.29.15) flags; null when the certificate has none. */
function keyUsageOf(cert: ParsedCertificate): x509.KeyUsageFlags | null {
  return extensionOf(cert, OID.keyUsage, x509.KeyUsagesExtension)?.usages ?? null;
}

function basicConstraintsOf(cert: ParsedCertificate): x509.BasicConstraintsExtension | null {
  return extensionOf(cert, OID.basicConstraints, x509.BasicConstraintsExtension);
}

/**
 * Throws "malformed certificate" when extensions cannot be decoded or one appears twice
 * (RFC 5280 forbids it, and a second keyUsage could otherwise hide behind the first).
 */
export function assertWellFormedExtensions(cert: ParsedCertificate): void {
  let oids: string[];
  try {
    oids = cert.x509.extensions.map((e) => e.type);
  } catch {
    throw edsInvalid('malformed certificate');
  }
  if (new Set(oids).size !== oids.length) throw edsInvalid('malformed certificate');
}

/** Throws unless the leaf's keyUsage, when present, allows digitalSignature. */
export function assertLeafKeyUsage(leaf: ParsedCertificate): void {
  const usage = keyUsageOf(leaf);
  if (usage !== null && (usage & x509.KeyUsageFlags.digitalSignature) === 0) {
    throw edsInvalid('certificate key usage does not allow digital signatures');
  }
}

/** Issuer/subject name match: same DER, or same text ignoring case and spacing. */
function namesMatch(issuerOf: ParsedCertificate, subjectOf: ParsedCertificate): boolean {
  const a = Buffer.from(issuerOf.x509.issuerName.toArrayBuffer());
  const b = Buffer.from(subjectOf.x509.subjectName.toArrayBuffer());
  if (a.equals(b)) return true;
  const norm = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').trim();
  return norm(issuerOf.x509.issuer) === norm(subjectOf.x509.subject);
}

/** The cryptographic link check: names alone would let a look-alike CA through. */
function isSignedBy(child: ParsedCertificate, issuer: ParsedCertificate): boolean {
  try {
    return child.native.verify(issuer.native.publicKey);
  } catch {
    return false; // unsupported or broken signature algorithm
  }
}

/**
 * Whether `issuer` may sign certificates at this depth. `caCertsBelow` counts the CA
 * certificates between it and the leaf (for pathLenConstraint). Certificates that came with
 * the proof rather than from the bundle must say explicitly that they are CAs, otherwise an
 * ordinary end-entity certificate could be used to mint others.
 */
function mayIssue(issuer: ParsedCertificate, fromBundle: boolean, caCertsBelow: number): boolean {
  try {
    return caConstraintsAllow(issuer, fromBundle, caCertsBelow);
  } catch {
    return false; // undecodable extensions: not a usable issuer
  }
}

function caConstraintsAllow(issuer: ParsedCertificate, fromBundle: boolean, caCertsBelow: number): boolean {
  const bc = basicConstraintsOf(issuer);
  if (bc) {
    if (!bc.ca) return false;
    if (bc.pathLength !== undefined && caCertsBelow > bc.pathLength) return false;
  } else if (!fromBundle) {
    return false;
  }
  const usage = keyUsageOf(issuer);
  return usage === null || (usage & x509.KeyUsageFlags.keyCertSign) !== 0;
}

/**
 * Builds leaf → intermediate(s) → trust anchor, checking every link cryptographically, the CA
 * constraints of every issuer and the validity of every certificate at `now`. `extra` are
 * untrusted certificates supplied with the proof (e.g. inside a CMS) usable as intermediates.
 * Returns the path (leaf first) or throws EDS_INVALID.
 */
export function buildTrustedPath(
  leaf: ParsedCertificate,
  trust: TrustStore,
  extra: readonly ParsedCertificate[],
  now: Date,
): ParsedCertificate[] {
  if (trust.has(leaf)) return [leaf];
  if (extra.length > MAX_EXTRA_CERTIFICATES) throw edsInvalid('too many certificates in the proof');

  const candidates = new Map<string, { cert: ParsedCertificate; fromBundle: boolean }>();
  for (const cert of extra) candidates.set(cert.sha256, { cert, fromBundle: false });
  for (const cert of trust.certificates) candidates.set(cert.sha256, { cert, fromBundle: true });

  const linkCache = new Map<string, boolean>();
  const linked = (child: ParsedCertificate, issuer: ParsedCertificate): boolean => {
    const key = `${child.sha256}:${issuer.sha256}`;
    let ok = linkCache.get(key);
    if (ok === undefined) {
      ok = namesMatch(child, issuer) && isSignedBy(child, issuer);
      linkCache.set(key, ok);
    }
    return ok;
  };

  let issuerOutOfValidity = false;
  let steps = 0;
  const extend = (path: ParsedCertificate[]): ParsedCertificate[] | null => {
    if (path.length >= MAX_PATH_LENGTH || ++steps > MAX_SEARCH_STEPS) return null;
    const child = path[path.length - 1];
    for (const { cert, fromBundle } of candidates.values()) {
      if (path.some((p) => p.sha256 === cert.sha256)) continue;
      if (!linked(child, cert)) continue;
      if (!mayIssue(cert, fromBundle, path.length - 1)) continue;
      if (!isWithinValidity(cert, now)) {
        issuerOutOfValidity = true;
        continue;
      }
      const next = [...path, cert];
      if (fromBundle) return next;
      const found = extend(next);
      if (found) return found;
    }
    return null;
  };

  const path = extend([leaf]);
  if (path) return path;
  throw edsInvalid(
    issuerOutOfValidity
      ? 'an issuing CA certificate is outside its validity period'
      : 'certificate is not issued by a trusted CA',
  );
}
