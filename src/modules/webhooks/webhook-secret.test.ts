import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { DEFAULT_DELIVERY_OPTIONS, retryDelayMs } from './delivery-worker';
import { generateWebhookSecret, openWebhookSecret, sealWebhookSecret, webhookSecretKey } from './webhook-secret';

describe('webhook secrets', () => {
  const key = webhookSecretKey(randomBytes(32));

  it('are whsec_ + base64 of 32 random bytes, usable by standardwebhooks', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(secret);
    const body = JSON.stringify({ id: 'm1', type: 'transaction.status', data: {} });
    const at = new Date();
    const headers = {
      'webhook-id': 'm1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign('m1', at, body),
    };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('are sealed bound to their webhook and opened only with the same key and id', () => {
    const secret = generateWebhookSecret();
    const id = randomUUID();
    const sealed = sealWebhookSecret(secret, id, key);
    expect(sealed.toString('latin1')).not.toContain(secret.slice(6));
    expect(openWebhookSecret(sealed, id, key)).toBe(secret);
    expect(() => openWebhookSecret(sealed, randomUUID(), key)).toThrow();
    expect(() => openWebhookSecret(sealed, id, webhookSecretKey(randomBytes(32)))).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => openWebhookSecret(tampered, id, key)).toThrow();
  });

  it('are sealed under a key of their own, not the encryption key itself', () => {
    const master = randomBytes(32);
    expect(webhookSecretKey(master).equals(master)).toBe(false);
    expect(webhookSecretKey(master).equals(webhookSecretKey(master))).toBe(true);
  });
});

describe('retryDelayMs', () => {
  it('is full jitter over 5 s doubling to a 1 h cap, never under 1 s', () => {
    for (let attempt = 1; attempt <= 40; attempt++) {
      const ceiling = Math.min(3_600_000, 5_000 * 2 ** (attempt - 1));
      for (let i = 0; i < 50; i++) {
        const delay = retryDelayMs(attempt, DEFAULT_DELIVERY_OPTIONS);
        expect(delay).toBeGreaterThanOrEqual(1_000);
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
    const late = Array.from({ length: 200 }, () => retryDelayMs(20, DEFAULT_DELIVERY_OPTIONS));
    expect(Math.max(...late)).toBeGreaterThan(1_800_000);
  });
});
