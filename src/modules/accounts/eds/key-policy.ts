import type { X509Certificate } from 'node:crypto';
import { edsInvalid } from './pki';

const ALLOWED_CURVES = new Set(['prime256v1', 'secp384r1']);
const MAX_PUBLIC_EXPONENT = 2n ** 32n;

export type KeyRole = 'ca' | 'leaf';

/**
 * Refuses keys outside the accepted sizes before any signature is verified with them: RSA
 * 2048–4096 bits for CAs (up to 8192 for a signer) with a public exponent below 2^32, or EC
 * P-256/P-384. A huge exponent makes every verification with that key slow.
 */
export function assertAllowedKey(cert: X509Certificate, role: KeyRole): void {
  const key = cert.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  switch (key.asymmetricKeyType) {
    case 'rsa':
    case 'rsa-pss': {
      const bits = details.modulusLength ?? 0;
      const exponent = details.publicExponent ?? 0n;
      if (bits < 2048) throw edsInvalid('certificate key is too weak');
      if (bits > (role === 'ca' ? 4096 : 8192) || exponent >= MAX_PUBLIC_EXPONENT || exponent < 3n) {
        throw edsInvalid(`${role === 'ca' ? 'CA ' : ''}certificate key is not supported`);
      }
      return;
    }
    case 'ec':
      if (ALLOWED_CURVES.has(details.namedCurve ?? '')) return;
      break;
  }
  throw edsInvalid(`${role === 'ca' ? 'CA ' : ''}certificate key algorithm is not supported`);
}
