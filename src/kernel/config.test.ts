import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from './config';

const dataDir = () => mkdtempSync(path.join(tmpdir(), 'config-test-'));

describe('loadConfig', () => {
  it('has working defaults and keeps generated development secrets in DATA_DIR', () => {
    const dir = dataDir();
    const a = loadConfig({ DATA_DIR: dir });
    expect(a).toMatchObject({ env: 'development', port: 4000, apiKeyRateLimit: 100, rpcUrls: {}, adminSubjects: [] });
    expect(a.databaseUrl).toBeUndefined();
    expect(a.databasePoolSize).toBe(20);
    expect(a.walletEncryptionKey).toHaveLength(32);
    expect(a.publicBaseUrl).toBe('http://localhost:4000');
    const b = loadConfig({ DATA_DIR: dir });
    expect(b.jwtSecret).toBe(a.jwtSecret);
    expect(b.walletEncryptionKey.equals(a.walletEncryptionKey)).toBe(true);
    expect(JSON.parse(readFileSync(path.join(dir, 'dev-secrets.json'), 'utf8'))).toHaveProperty('jwtSecret');
  });

  it('reads the EDS revocation settings and refuses to require CRLs without a CRL file', () => {
    const dir = dataDir();
    const crls = path.join(dir, 'crls.pem');
    writeFileSync(crls, '');
    expect(loadConfig({ DATA_DIR: dir })).toMatchObject({ edsRequireCrl: false, edsCrlFile: undefined });
    expect(loadConfig({ DATA_DIR: dir, EDS_CRL_FILE: crls, EDS_REQUIRE_CRL: 'true' })).toMatchObject({
      edsCrlFile: crls,
      edsRequireCrl: true,
    });
    expect(() => loadConfig({ DATA_DIR: dir, EDS_REQUIRE_CRL: 'true' })).toThrow(/EDS_REQUIRE_CRL: needs EDS_CRL_FILE/);
    expect(() => loadConfig({ DATA_DIR: dir, EDS_CRL_FILE: path.join(dir, 'missing.pem') })).toThrow(
      /EDS_CRL_FILE: file .* does not exist/,
    );
    expect(() => loadConfig({ DATA_DIR: dir, EDS_REQUIRE_CRL: 'maybe' })).toThrow(/EDS_REQUIRE_CRL/);
  });

  it('reads every documented variable', () => {
    const c = loadConfig({
      NODE_ENV: 'development',
      PORT: '8080',
      DATABASE_URL: 'postgres://u@db:5432/portal',
      TESTNET_RPC_URL: 'http://qbft-test:8545',
      MAINNET_RPC_URL: 'https://qbft-main:8545',
      JWT_SECRET: 'x'.repeat(32),
      WALLET_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      ADMIN_SUBJECTS: 'IIN1, IIN2 ,',
      FAUCET_PRIVATE_KEY: `0x${'ab'.repeat(32)}`,
      PUBLIC_BASE_URL: 'https://api.example.org',
      DEV_BASE_URL: 'https://dev.example.org',
      DATA_DIR: dataDir(),
      API_KEY_RATE_LIMIT: '0',
      DATABASE_POOL_SIZE: '8',
    });
    expect(c).toMatchObject({
      port: 8080,
      databaseUrl: 'postgres://u@db:5432/portal',
      rpcUrls: { testnet: 'http://qbft-test:8545', mainnet: 'https://qbft-main:8545' },
      adminSubjects: ['IIN1', 'IIN2'],
      publicBaseUrl: 'https://api.example.org',
      devBaseUrl: 'https://dev.example.org',
      apiKeyRateLimit: 0,
      databasePoolSize: 8,
    });
    expect(c.walletEncryptionKey.equals(Buffer.alloc(32, 7))).toBe(true);
  });

  it('refuses a database pool too small to serve a request and its background work', () => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), DATABASE_POOL_SIZE: '1' })).toThrow(/DATABASE_POOL_SIZE/);
    expect(() => loadConfig({ DATA_DIR: dataDir(), DATABASE_POOL_SIZE: 'many' })).toThrow(/DATABASE_POOL_SIZE/);
  });

  it('reads the gateway read cache bounds, and refuses negative or tiny ones', () => {
    const dir = dataDir();
    expect(loadConfig({ DATA_DIR: dir }).readCache).toEqual({ maxEntries: 10_000, maxBytes: 32 * 1024 * 1024 });
    expect(
      loadConfig({ DATA_DIR: dir, GATEWAY_READ_CACHE_MAX_ENTRIES: '0', GATEWAY_READ_CACHE_MAX_BYTES: '1048576' })
        .readCache,
    ).toEqual({ maxEntries: 0, maxBytes: 1_048_576 });
    expect(() => loadConfig({ DATA_DIR: dir, GATEWAY_READ_CACHE_MAX_ENTRIES: '-1' })).toThrow(
      /GATEWAY_READ_CACHE_MAX_ENTRIES/,
    );
    expect(() => loadConfig({ DATA_DIR: dir, GATEWAY_READ_CACHE_MAX_BYTES: '10' })).toThrow(
      /GATEWAY_READ_CACHE_MAX_BYTES/,
    );
    expect(() => loadConfig({ DATA_DIR: dir, GATEWAY_READ_CACHE_MAX_ENTRIES: 'many' })).toThrow(
      /GATEWAY_READ_CACHE_MAX_ENTRIES/,
    );
  });

  it('keeps compile outputs in DATA_DIR by default, elsewhere with COMPILE_CACHE_DIR, and nowhere with a bound of 0', () => {
    const dir = dataDir();
    expect(loadConfig({ DATA_DIR: dir }).compileCache).toEqual({
      dir: path.join(dir, 'compile-cache'),
      maxBytes: 256 * 1024 * 1024,
    });
    expect(
      loadConfig({ DATA_DIR: dir, COMPILE_CACHE_DIR: '/var/cache/solc', COMPILE_CACHE_MAX_BYTES: '1000' }).compileCache,
    ).toEqual({
      dir: '/var/cache/solc',
      maxBytes: 1000,
    });
    expect(loadConfig({ DATA_DIR: dir, COMPILE_CACHE_MAX_BYTES: '0' }).compileCache).toBeUndefined();
    expect(() => loadConfig({ DATA_DIR: dir, COMPILE_CACHE_MAX_BYTES: '-1' })).toThrow(/COMPILE_CACHE_MAX_BYTES/);
  });

  it('reads REDIS_URL (redis:// or rediss://), unset by default, and refuses another scheme without echoing it', () => {
    const dir = dataDir();
    expect(loadConfig({ DATA_DIR: dir }).redisUrl).toBeUndefined();
    expect(loadConfig({ DATA_DIR: dir, REDIS_URL: '' }).redisUrl).toBeUndefined();
    expect(loadConfig({ DATA_DIR: dir, REDIS_URL: 'redis://:pw@cache:6379/2' }).redisUrl).toBe(
      'redis://:pw@cache:6379/2',
    );
    expect(loadConfig({ DATA_DIR: dir, REDIS_URL: 'rediss://cache:6380' }).redisUrl).toBe('rediss://cache:6380');
    let error: ConfigError | undefined;
    try {
      loadConfig({ DATA_DIR: dir, REDIS_URL: 'http://:s3cret@cache:6379' });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems).toEqual([expect.stringMatching(/^REDIS_URL: must be a URL starting with redis:\/\//)]);
    expect(error!.message).not.toContain('s3cret');
  });

  it('reads WEB_CONCURRENCY (default: the number of cores; 1 to 64) and refuses anything else', () => {
    const dir = dataDir();
    const defaults = loadConfig({ DATA_DIR: dir });
    expect(defaults.webConcurrency).toBe(availableParallelism());
    expect(defaults.backgroundWork).toBe(true);
    expect(loadConfig({ DATA_DIR: dir, WEB_CONCURRENCY: '1' }).webConcurrency).toBe(1);
    expect(loadConfig({ DATA_DIR: dir, WEB_CONCURRENCY: '4' }).webConcurrency).toBe(4);
    for (const bad of ['0', '-2', '65', '1.5', 'many']) {
      expect(() => loadConfig({ DATA_DIR: dir, WEB_CONCURRENCY: bad })).toThrow(/WEB_CONCURRENCY/);
    }
  });

  it('reads DATABASE_READ_URL (postgres://), unset by default, and refuses another scheme without echoing it', () => {
    const dir = dataDir();
    expect(loadConfig({ DATA_DIR: dir }).databaseReadUrl).toBeUndefined();
    expect(loadConfig({ DATA_DIR: dir, DATABASE_READ_URL: 'postgres://ro@replica:5432/portal' }).databaseReadUrl).toBe(
      'postgres://ro@replica:5432/portal',
    );
    let error: ConfigError | undefined;
    try {
      loadConfig({ DATA_DIR: dir, DATABASE_READ_URL: 'mysql://ro:s3cret@replica/portal' });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems).toEqual([
      expect.stringMatching(/^DATABASE_READ_URL: must be a URL starting with postgres:\/\//),
    ]);
    expect(error!.message).not.toContain('s3cret');
  });

  it('reports every problem at once, without echoing secret values', () => {
    let error: ConfigError | undefined;
    try {
      loadConfig({
        PORT: '70000',
        DATABASE_URL: 'mysql://x',
        TESTNET_RPC_URL: 'ws://node',
        JWT_SECRET: 'tooshort',
        WALLET_ENCRYPTION_KEY: 'abc',
        API_KEY_RATE_LIMIT: '-1',
      });
    } catch (e) {
      error = e as ConfigError;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.problems.map((p) => p.split(':')[0]).sort()).toEqual(
      ['API_KEY_RATE_LIMIT', 'DATABASE_URL', 'JWT_SECRET', 'PORT', 'TESTNET_RPC_URL', 'WALLET_ENCRYPTION_KEY'].sort(),
    );
    expect(error!.message).not.toContain('tooshort');
  });

  it('requires the secrets and a trust bundle in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir() })).toThrow(
      /JWT_SECRET: required in production[\s\S]*WALLET_ENCRYPTION_KEY: required[\s\S]*EDS_TRUSTED_CA_FILE: required/,
    );
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        JWT_SECRET: 'x'.repeat(32),
        WALLET_ENCRYPTION_KEY: 'ab'.repeat(32),
        EDS_TRUSTED_CA_FILE: '/nonexistent/ca.pem',
      }),
    ).toThrow(/EDS_TRUSTED_CA_FILE: file \/nonexistent\/ca.pem does not exist/);
  });
});

describe('WEBHOOK_ALLOW_PRIVATE', () => {
  const production = () => {
    const dir = dataDir();
    const ca = path.join(dir, 'ca.pem');
    writeFileSync(ca, '');
    return {
      NODE_ENV: 'production',
      DATA_DIR: dir,
      DATABASE_URL: 'postgres://db.internal:5432/devportal',
      TESTNET_RPC_URL: 'https://testnet.example',
      MAINNET_RPC_URL: 'https://mainnet.example',
      FAUCET_PRIVATE_KEY: randomBytes(32).toString('hex'),
      JWT_SECRET: randomBytes(32).toString('base64url'),
      WALLET_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      EDS_TRUSTED_CA_FILE: ca,
    };
  };

  it('refuses private webhook targets in production unless set, and allows them elsewhere', () => {
    expect(loadConfig(production()).webhooks).toEqual({ allowPrivateTargets: false });
    expect(loadConfig({ ...production(), WEBHOOK_ALLOW_PRIVATE: 'true' }).webhooks).toEqual({
      allowPrivateTargets: true,
    });
    expect(loadConfig({ DATA_DIR: dataDir() }).webhooks).toEqual({ allowPrivateTargets: true });
    expect(loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir() }).webhooks).toEqual({ allowPrivateTargets: true });
  });

  it('accepts only true or false', () => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), WEBHOOK_ALLOW_PRIVATE: 'maybe' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE: must be true or false/,
    );
  });
});
