/** Login by electronic digital signature (docs/api.md, "Login by electronic digital signature"): proof verification, trust bundle, dev PKI. */
export { verifyEdsProof, type EdsIdentity, type EdsProof, type RevocationPolicy } from './eds-verifier';
export { CrlStore } from './crl-store';
export { TrustStore } from './trust-store';
export {
  createDevCa,
  issueCertificate,
  loadOrCreateDevCa,
  signNonce,
  signNonceCms,
  type DevCa,
  type DevCredential,
  type IssueOptions,
  type KeyAlgorithm,
} from './dev-ca';
export type { ParsedCertificate } from './pki';
