import { HDNodeWallet, Mnemonic } from 'ethers';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from './config';
import { decodeKeyStrictly, productionProblems, WELL_KNOWN_DEV_KEYS } from './production-guard';

const good = {
  DATABASE_URL: 'postgres://u@db/portal',
  TESTNET_RPC_URL: 'http://besu-test:8545',
  MAINNET_RPC_URL: 'http://besu-main:8545',
  FAUCET_PRIVATE_KEY: `0x${'3f7a91c2'.repeat(8)}`,
  JWT_SECRET: 'Zq8vN2rT5xW9yB4mK7pL1cF6hJ3dS0aE',
  WALLET_ENCRYPTION_KEY: Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7 + 1)).toString('base64'),
};

describe('production guard', () => {
  it("lists anvil's default mnemonic accounts 0 to 9", () => {
    const mnemonic = Mnemonic.fromPhrase('test test test test test test test test test test test junk');
    const derived = Array.from({ length: 10 }, (_, i) =>
      HDNodeWallet.fromMnemonic(mnemonic, `m/44'/60'/0'/0/${i}`).privateKey.slice(2),
    );
    expect(WELL_KNOWN_DEV_KEYS).toEqual(derived);
  });

  it('accepts a complete production environment with strong secrets', () => {
    expect(productionProblems(good)).toEqual([]);
  });

  it('refuses missing database, RPC URLs and faucet key', () => {
    const problems = productionProblems({
      JWT_SECRET: good.JWT_SECRET,
      WALLET_ENCRYPTION_KEY: good.WALLET_ENCRYPTION_KEY,
    });
    for (const name of ['DATABASE_URL', 'TESTNET_RPC_URL', 'MAINNET_RPC_URL', 'FAUCET_PRIVATE_KEY']) {
      expect(problems.join('\n')).toMatch(new RegExp(`${name}: required in production`));
    }
  });

  it('refuses the well-known dev-chain keys as faucet key, in any spelling', () => {
    for (const key of [WELL_KNOWN_DEV_KEYS[0]!, `0x${WELL_KNOWN_DEV_KEYS[3]!.toUpperCase()}`]) {
      expect(productionProblems({ ...good, FAUCET_PRIVATE_KEY: key }).join()).toMatch(/well-known dev-chain key/);
    }
  });

  it('refuses weak secrets: all-equal bytes, too short, not strictly decodable', () => {
    const weak = (env: Partial<typeof good>) => productionProblems({ ...good, ...env }).join();
    expect(weak({ WALLET_ENCRYPTION_KEY: '00'.repeat(32) })).toMatch(/WALLET_ENCRYPTION_KEY: weak/);
    expect(weak({ WALLET_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') })).toMatch(/weak/);
    expect(weak({ WALLET_ENCRYPTION_KEY: `${good.WALLET_ENCRYPTION_KEY}!!` })).toMatch(/not strictly decodable/);
    expect(weak({ WALLET_ENCRYPTION_KEY: Buffer.alloc(16, 9).toString('base64') })).toMatch(/not strictly decodable/);
    expect(weak({ JWT_SECRET: 'a'.repeat(40) })).toMatch(/JWT_SECRET: weak/);
    expect(weak({ JWT_SECRET: 'short-secret' })).toMatch(/JWT_SECRET: too short/);
    expect(decodeKeyStrictly(`0x${'ab'.repeat(32)}`)).toHaveLength(32);
    expect(decodeKeyStrictly(Buffer.alloc(32, 1).toString('base64url'))).toHaveLength(32);
  });

  it('stops loadConfig in production with every problem listed', () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'guard-test-'));
    const ca = path.join(dataDir, 'ca.pem');
    writeFileSync(ca, '');
    const env = { NODE_ENV: 'production', DATA_DIR: dataDir, EDS_TRUSTED_CA_FILE: ca };
    expect(() => loadConfig({ ...env, ...good })).not.toThrow();
    expect(() => loadConfig({ ...env, ...good, FAUCET_PRIVATE_KEY: WELL_KNOWN_DEV_KEYS[0] })).toThrow(ConfigError);
    expect(() => loadConfig({ ...env, ...good, DATABASE_URL: '' })).toThrow(/DATABASE_URL: required in production/);
  });
});
