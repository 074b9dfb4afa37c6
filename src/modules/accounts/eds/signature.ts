import { constants, verify as cryptoVerify, type KeyObject } from 'node:crypto';

export type HashName = 'sha256' | 'sha384' | 'sha512';
export type SignatureScheme = 'rsa-pkcs1' | 'rsa-pss' | 'ecdsa';

/**
 * Verifies with one scheme. RSA-PSS recovers the salt length from the signature itself
 * (RSA_PSS_SALTLEN_AUTO), so any salt length is accepted; ECDSA accepts DER or IEEE-P1363.
 */
export function verifyWithScheme(
  key: KeyObject,
  scheme: SignatureScheme,
  hash: HashName,
  data: Uint8Array,
  signature: Uint8Array,
): boolean {
  const attempt = (options: Parameters<typeof cryptoVerify>[2]): boolean => {
    try {
      return cryptoVerify(hash, data, options, signature);
    } catch {
      return false; // wrong key type for the scheme, or an undecodable signature
    }
  };
  switch (scheme) {
    case 'rsa-pkcs1':
      return key.asymmetricKeyType === 'rsa' && attempt({ key, padding: constants.RSA_PKCS1_PADDING });
    case 'rsa-pss':
      return attempt({ key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO });
    case 'ecdsa':
      return (
        key.asymmetricKeyType === 'ec' &&
        (attempt({ key, dsaEncoding: 'der' }) || attempt({ key, dsaEncoding: 'ieee-p1363' }))
      );
  }
}

/** Verifies a raw SHA-256 signature over the nonce with whichever scheme the key allows. */
export function verifyNonceSignature(key: KeyObject, data: Uint8Array, signature: Uint8Array): boolean {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return (
        verifyWithScheme(key, 'rsa-pkcs1', 'sha256', data, signature) ||
        verifyWithScheme(key, 'rsa-pss', 'sha256', data, signature)
      );
    case 'rsa-pss':
      return verifyWithScheme(key, 'rsa-pss', 'sha256', data, signature);
    case 'ec':
      return verifyWithScheme(key, 'ecdsa', 'sha256', data, signature);
    default:
      return false;
  }
}
