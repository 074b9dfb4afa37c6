/** Login by electronic digital signature (API.md §2): proof verification, trust bundle, dev PKI. */
export { verifyEdsProof, type EdsIdentity, type EdsProof } from './eds-verifier';
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
