import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** Layout version of the sealed blob, so the format can evolve without ambiguity. */
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Seals a wallet private key with AES-256-GCM under the service's wallet encryption key.
 * The wallet address is authenticated as associated data, so a blob copied onto another
 * wallet's row fails to open.
 */
export function sealPrivateKey(privateKey: string, address: string, key: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(address.toLowerCase(), 'utf8'));
  const body = Buffer.concat([cipher.update(Buffer.from(privateKey.replace(/^0x/, ''), 'hex')), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
}

/** Opens a blob made by sealPrivateKey; throws when the key, address or blob do not match. */
export function openPrivateKey(sealed: Buffer, address: string, key: Buffer): string {
  if (sealed.length < 1 + IV_BYTES + TAG_BYTES + 32 || sealed[0] !== VERSION) {
    throw new Error('sealed wallet key has an unknown format');
  }
  const iv = sealed.subarray(1, 1 + IV_BYTES);
  const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(address.toLowerCase(), 'utf8'));
  decipher.setAuthTag(tag);
  const plain = Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
  return `0x${plain.toString('hex')}`;
}
