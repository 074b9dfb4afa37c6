import * as asn1js from 'asn1js';
import { OID, edsInvalid, extensionOf, pkijs, type ParsedCertificate } from './pki';
import type { KeyRole } from './key-policy';
import type { TrustStore } from './trust-store';

/*
 * RFC 5280 path validation. The path is found here under tight bounds (a proof brings at most
 * ten certificates, each key checked before any signature is), then validated by pkijs's
 * CertificateChainValidationEngine (signatures, name chaining, validity, CA flags, name
 * constraints, policies); what that engine leaves out is checked here: pathLenConstraint,
 * unknown critical extensions of every certificate, the leaf's keyUsage and extendedKeyUsage,
 * and the sizes of CA keys.
 */

/** A login proof carries at most this many certificates (docs/api.md, "Login by electronic digital signature"). */
export const MAX_PROOF_CERTIFICATES = 10;
/** Longest accepted path, leaf and anchor included; real national PKIs use 2–4. */
const MAX_PATH_LENGTH = 8;
/** Caps the search so a proof stuffed with mutually-signed look-alikes cannot burn CPU. */
const MAX_SEARCH_STEPS = 100;

/** Extensions whose meaning this validation applies; any other critical extension fails. */
const UNDERSTOOD_EXTENSIONS = new Set<string>([
  OID.subjectKeyIdentifier,
  OID.keyUsage,
  OID.subjectAltName,
  OID.basicConstraints,
  OID.nameConstraints,
  OID.certificatePolicies,
  OID.policyMappings,
  OID.authorityKeyIdentifier,
  OID.policyConstraints,
  OID.extKeyUsage,
  OID.inhibitAnyPolicy,
]);

/** A leaf with an extendedKeyUsage must allow one of these (docs/api.md, "Login by electronic digital signature"). */
const LOGIN_KEY_PURPOSES = new Set([
  '1.3.6.1.5.5.7.3.2', // id-kp-clientAuth
  '1.3.6.1.5.5.7.3.4', // id-kp-emailProtection
  '2.5.29.37.0', // anyExtendedKeyUsage
]);

const KEY_USAGE_DIGITAL_SIGNATURE = 0x80;
const KEY_USAGE_KEY_CERT_SIGN = 0x04;
/** Throws unless `now` lies within the certificate's validity period. */
export function assertWithinValidity(cert: ParsedCertificate, now: Date, role: KeyRole): void {
  if (isWithinValidity(cert, now)) return;
  if (role === 'ca') throw edsInvalid('an issuing CA certificate is outside its validity period');
  throw edsInvalid(now < cert.pkijs.notBefore.value ? 'certificate is not yet valid' : 'certificate has expired');
}

function isWithinValidity(cert: ParsedCertificate, now: Date): boolean {
  return now >= cert.pkijs.notBefore.value && now <= cert.pkijs.notAfter.value;
}

/**
 * Extensions: each at most once (RFC 5280 §4.2), no critical extension this validation does
 * not apply. For the leaf also keyUsage (digitalSignature) and extendedKeyUsage.
 */
export function assertExtensions(cert: ParsedCertificate, role: KeyRole): void {
  const extensions = cert.pkijs.extensions ?? [];
  const oids = new Set(extensions.map((e) => e.extnID));
  if (oids.size !== extensions.length) throw edsInvalid('malformed certificate');
  for (const ext of extensions) {
    if (ext.critical && !UNDERSTOOD_EXTENSIONS.has(ext.extnID)) {
      throw edsInvalid('certificate has an unknown critical extension');
    }
  }
  if (role !== 'leaf') return;
  const usage = keyUsageOf(cert);
  if (usage !== null && (usage & KEY_USAGE_DIGITAL_SIGNATURE) === 0) {
    throw edsInvalid('certificate key usage does not allow digital signatures');
  }
  const eku = extensionOf(cert, OID.extKeyUsage);
  if (eku) {
    const purposes = (eku.parsedValue as pkijs.ExtKeyUsage | undefined)?.keyPurposes;
    if (!purposes) throw edsInvalid('malformed certificate');
    if (!purposes.some((p) => LOGIN_KEY_PURPOSES.has(p))) {
      throw edsInvalid('certificate extended key usage does not allow client authentication');
    }
  }
}

/** The first byte of the keyUsage bit string (the flags this module reads); null when absent. */
function keyUsageOf(cert: ParsedCertificate): number | null {
  const ext = extensionOf(cert, OID.keyUsage);
  if (!ext) return null;
  const bits = ext.parsedValue as asn1js.BitString | undefined;
  if (!(bits instanceof asn1js.BitString)) throw edsInvalid('malformed certificate');
  return bits.valueBlock.valueHexView[0] ?? 0;
}

function basicConstraintsOf(cert: ParsedCertificate): pkijs.BasicConstraints | null {
  const ext = extensionOf(cert, OID.basicConstraints);
  if (!ext) return null;
  if (!(ext.parsedValue instanceof pkijs.BasicConstraints)) throw edsInvalid('malformed certificate');
  return ext.parsedValue;
}

function pathLenOf(bc: pkijs.BasicConstraints): number | undefined {
  const value = bc.pathLenConstraint;
  if (value === undefined) return undefined;
  return typeof value === 'number' ? value : value.valueBlock.valueDec;
}

/** An issuer must be a CA (basicConstraints cA) whose keyUsage, when present, has keyCertSign. */
function mayIssue(cert: ParsedCertificate): boolean {
  try {
    if (!basicConstraintsOf(cert)?.cA) return false;
    const usage = keyUsageOf(cert);
    return usage === null || (usage & KEY_USAGE_KEY_CERT_SIGN) !== 0;
  } catch {
    return false;
  }
}

const isSelfIssued = (cert: ParsedCertificate): boolean => cert.pkijs.subject.isEqual(cert.pkijs.issuer);

/** The cryptographic link: names alone would let a look-alike CA through. */
function isSignedBy(child: ParsedCertificate, issuer: ParsedCertificate): boolean {
  if (!child.pkijs.issuer.isEqual(issuer.pkijs.subject)) return false;
  try {
    return child.native.verify(issuer.native.publicKey);
  } catch {
    return false;
  }
}

/**
 * Validates leaf → intermediate(s) → trust anchor and returns the path, leaf first, anchor
 * last. `extra` are the untrusted certificates that came with the proof. The anchor is the
 * topmost certificate of the bundle the path reaches (the root when the bundle holds it).
 */
export async function validatePath(
  leaf: ParsedCertificate,
  trust: TrustStore,
  extra: readonly ParsedCertificate[],
  now: Date,
): Promise<ParsedCertificate[]> {
  if (trust.has(leaf)) return [leaf];
  const path = findPath(leaf, trust, extra, now);
  for (const cert of path.slice(1, -1)) assertExtensions(cert, 'ca');
  assertPathLengths(path);

  const engine = new pkijs.CertificateChainValidationEngine({
    trustedCerts: [path[path.length - 1].pkijs],
    certs: path
      .slice(0, -1)
      .reverse()
      .map((c) => c.pkijs), // the engine takes the leaf last
    checkDate: now,
  });
  let verdict: pkijs.CertificateChainValidationEngineVerifyResult;
  try {
    verdict = await engine.verify({ passedWhenNotRevValues: true });
  } catch (e) {
    verdict = e as pkijs.CertificateChainValidationEngineVerifyResult;
  }
  if (verdict?.result !== true) {
    const reason = String(verdict?.resultMessage ?? '');
    throw edsInvalid(
      /name constraint/i.test(reason)
        ? 'certificate is outside the name constraints of its CA'
        : 'certificate path is not valid',
    );
  }
  return path;
}

/** RFC 5280 §4.2.1.9: a CA's pathLenConstraint bounds the non-self-issued CA certificates below it. */
function assertPathLengths(path: readonly ParsedCertificate[]): void {
  for (let k = 1; k < path.length; k++) {
    const bc = basicConstraintsOf(path[k]);
    const limit = bc ? pathLenOf(bc) : undefined;
    if (limit === undefined) continue;
    const below = path.slice(1, k).filter((c) => !isSelfIssued(c)).length;
    if (below > limit) throw edsInvalid('certificate path is longer than a CA allows');
  }
}

/** Bounded depth-first search for a path to the bundle; every issuer is checked as it is tried. */
function findPath(
  leaf: ParsedCertificate,
  trust: TrustStore,
  extra: readonly ParsedCertificate[],
  now: Date,
): ParsedCertificate[] {
  const candidates = [
    ...trust.certificates.map((cert) => ({ cert, anchor: true })),
    ...extra.filter((c) => !trust.has(c)).map((cert) => ({ cert, anchor: false })),
  ];
  let steps = 0;
  let issuerOutOfValidity = false;
  let issuerNotCa = false;

  const extend = (path: ParsedCertificate[], anchorsOnly: boolean): ParsedCertificate[] | null => {
    if (path.length >= MAX_PATH_LENGTH) return null;
    const child = path[path.length - 1];
    for (const { cert, anchor } of candidates) {
      if (anchorsOnly && !anchor) continue;
      if (++steps > MAX_SEARCH_STEPS) return null;
      // Distinct subjects along a path: look-alikes cannot be chained into permutations.
      if (path.some((p) => p.pkijs.subject.isEqual(cert.pkijs.subject))) continue;
      if (!isSignedBy(child, cert)) continue;
      if (!mayIssue(cert)) {
        issuerNotCa = true;
        continue;
      }
      if (!isWithinValidity(cert, now)) {
        issuerOutOfValidity = true;
        continue;
      }
      const next = [...path, cert];
      // Past a bundle certificate only bundle certificates lead further up, to its root.
      if (anchor) return isSelfIssued(cert) ? next : (extend(next, true) ?? next);
      const found = extend(next, false);
      if (found) return found;
    }
    return null;
  };

  const path = extend([leaf], false);
  if (path) return path;
  if (issuerOutOfValidity) throw edsInvalid('an issuing CA certificate is outside its validity period');
  if (issuerNotCa) throw edsInvalid('certificate is issued by a certificate that may not issue certificates');
  throw edsInvalid('certificate is not issued by a trusted CA');
}
