import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** Layout version of a sealed secret. */
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Random bytes of a secret (Standard Webhooks asks for 24 to 64). */
const SECRET_BYTES = 32;

/** A new signing secret in the Standard Webhooks format: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/**
 * The key sealing webhook secrets: derived (HKDF-SHA256) from the service's encryption key with a
 * label of its own, so that it is never the key that seals wallet keys.
 */
export function webhookSecretKey(encryptionKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', encryptionKey, Buffer.alloc(0), 'webhook-signing-secret/v1', 32));
}

/**
 * Seals a secret with AES-256-GCM (the scheme of the custodial wallet keys); the webhook id is
 * authenticated as associated data, so a blob copied onto another webhook's row fails to open.
 */
export function sealWebhookSecret(secret: string, webhookId: string, key: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(webhookId, 'utf8'));
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
}

/** Opens a blob made by sealWebhookSecret; throws when key, webhook or blob do not match. */
export function openWebhookSecret(sealed: Buffer, webhookId: string, key: Buffer): string {
  if (sealed.length <= 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) {
    throw new Error('sealed webhook secret has an unknown format');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 1 + IV_BYTES));
  decipher.setAAD(Buffer.from(webhookId, 'utf8'));
  decipher.setAuthTag(sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
}
