import { randomBytes } from 'node:crypto';
import { Wallet } from 'ethers';
import { openPrivateKey, sealPrivateKey } from './wallet-key-cipher';

describe('wallet key cipher', () => {
  const key = randomBytes(32);
  const wallet = Wallet.createRandom();

  it('round-trips a private key and never stores it in the clear', () => {
    const sealed = sealPrivateKey(wallet.privateKey, wallet.address, key);
    expect(sealed.toString('hex')).not.toContain(wallet.privateKey.slice(2));
    expect(openPrivateKey(sealed, wallet.address, key)).toBe(wallet.privateKey);
  });

  it('uses a fresh IV each time', () => {
    const a = sealPrivateKey(wallet.privateKey, wallet.address, key);
    const b = sealPrivateKey(wallet.privateKey, wallet.address, key);
    expect(a.equals(b)).toBe(false);
  });

  it('refuses another encryption key, another address, or a tampered blob', () => {
    const sealed = sealPrivateKey(wallet.privateKey, wallet.address, key);
    expect(() => openPrivateKey(sealed, wallet.address, randomBytes(32))).toThrow();
    expect(() => openPrivateKey(sealed, Wallet.createRandom().address, key)).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => openPrivateKey(tampered, wallet.address, key)).toThrow();
  });
});
