import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { productionProblems } from './production-guard';
import { readNetworkOptions, type NetworkOptions } from './network-settings';
import type { Network } from './network';

/** Raised when the environment is unusable; carries every problem found, not just the first. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

const url = (protocols: string[]) =>
  optionalString.refine(
    (v) => v === undefined || protocols.some((p) => v.startsWith(`${p}://`)),
    `must be a URL starting with ${protocols.map((p) => `${p}://`).join(' or ')}`,
  );

const hex32 = /^(0x)?[0-9a-fA-F]{64}$/;

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: url(['postgres', 'postgresql']),
  /** A replica for anonymous explorer reads (docs/api.md, "Operations"); unset: the primary. */
  DATABASE_READ_URL: url(['postgres', 'postgresql']),
  /** Connections of this instance's database pool (LISTEN and lock connections come on top). */
  DATABASE_POOL_SIZE: z.coerce.number().int().min(2).max(500).default(20),
  /** Per-second limits, WebSocket caps counted across instances (docs/api.md, "Several instances"). */
  REDIS_URL: url(['redis', 'rediss']),
  /** HTTP worker processes sharing the port (docs/api.md, "Operations"); default: the number of cores. */
  WEB_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(() => availableParallelism()),
  TESTNET_RPC_URL: url(['http', 'https']),
  MAINNET_RPC_URL: url(['http', 'https']),
  JWT_SECRET: optionalString.refine((v) => v === undefined || v.length >= 32, 'must be at least 32 characters'),
  WALLET_ENCRYPTION_KEY: optionalString.refine(
    (v) => v === undefined || hex32.test(v) || Buffer.from(v, 'base64').length === 32,
    'must be 32 bytes, as 64 hex characters or base64',
  ),
  EDS_TRUSTED_CA_FILE: optionalString,
  /** CRLs (PEM blocks or one DER CRL) of the EDS CAs, re-read when the file changes. */
  EDS_CRL_FILE: optionalString,
  /** Refuse a login whose certificate's issuer has no current CRL (fail closed). */
  EDS_REQUIRE_CRL: z
    .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  ADMIN_SUBJECTS: optionalString,
  FAUCET_PRIVATE_KEY: optionalString.refine(
    (v) => v === undefined || hex32.test(v),
    'must be a 32-byte hex private key',
  ),
  PUBLIC_BASE_URL: url(['http', 'https']),
  DEV_BASE_URL: url(['http', 'https']),
  DATA_DIR: z.string().default('./data'),
  API_KEY_RATE_LIMIT: z.coerce.number().int().min(0).default(100),
  /** Gateway read cache, per network: most answers kept (0 turns caching off) and most bytes. */
  GATEWAY_READ_CACHE_MAX_ENTRIES: z.coerce.number().int().min(0).default(10_000),
  GATEWAY_READ_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(32 * 1024 * 1024),
  /** Successful compile outputs kept on disk (default `<DATA_DIR>/compile-cache`); at most this many bytes, 0 is off. */
  COMPILE_CACHE_DIR: optionalString,
  COMPILE_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(0)
    .default(256 * 1024 * 1024),
  /** Block time of the local dev chains started in zero-config mode, in seconds. */
  LOCAL_CHAIN_BLOCK_TIME: z.coerce.number().int().min(1).max(60).default(1),
  /** Whether this instance may run the explorer's indexer (only the holder of its lock writes). */
  INDEXER_ENABLED: z
    .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  /** Block a new explorer index starts from; an existing index resumes where it stopped. */
  INDEXER_START_BLOCK: z.coerce.number().int().min(0).default(0),
  /** Hostile-client limits (docs/api.md, "Conventions") and HTTP hygiene (§1, §11). */
  PUBLIC_RATE_LIMIT: z.coerce.number().int().min(0).default(100),
  LOGIN_RATE_LIMIT: z.coerce.number().int().min(0).default(30),
  DEVELOPER_RATE_LIMIT: z.coerce.number().int().min(0).default(1000),
  WS_CONNECTIONS_PER_IP: z.coerce.number().int().min(1).default(50),
  TRUST_PROXY: optionalString,
  CORS_ORIGINS: optionalString,
  METRICS_TOKEN: optionalString,
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** In production, allow webhook URLs on private, loopback and link-local addresses. */
  WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
});

export interface AppConfig {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  logLevel: string;
  dataDir: string;
  /** Undefined: start an embedded PostgreSQL in dataDir. */
  databaseUrl?: string;
  /** DATABASE_READ_URL: the replica the explorer's anonymous index reads go to (same pool size). */
  databaseReadUrl?: string;
  /** DATABASE_POOL_SIZE: connections of the pool (PostgreSQL's max_connections is shared by every instance). */
  databasePoolSize: number;
  /** REDIS_URL: per-second limits and WebSocket caps counted in Redis; undefined: in each instance's memory. */
  redisUrl?: string;
  /** WEB_CONCURRENCY: HTTP worker processes; 1: this process serves (no workers). */
  webConcurrency: number;
  /**
   * Whether this process runs the background work (indexer, transaction tracker, webhook
   * deliveries): true, but false on all workers but one (src/app/cluster.ts sets it).
   */
  backgroundWork: boolean;
  /** Networks whose dev chain the cluster's primary started (a worker's rpcUrls then name it). */
  localNetworks?: Network[];
  /** Undefined for a network: start a local anvil node for it. */
  rpcUrls: Partial<Record<Network, string>>;
  /** Per-network RPC connections and fee policy (`TESTNET_…`, `MAINNET_…`). */
  networks: Record<Network, NetworkOptions>;
  jwtSecret: string;
  walletEncryptionKey: Buffer;
  /** Undefined outside production: use (and create) the development CA in dataDir. */
  edsTrustedCaFile?: string;
  /** EDS revocation: EDS_CRL_FILE, EDS_REQUIRE_CRL. */
  edsCrlFile?: string;
  edsRequireCrl: boolean;
  adminSubjects: string[];
  faucetPrivateKey?: string;
  publicBaseUrl: string;
  devBaseUrl: string;
  apiKeyRateLimit: number;
  /** Gateway read cache bounds per network: GATEWAY_READ_CACHE_MAX_ENTRIES, GATEWAY_READ_CACHE_MAX_BYTES. */
  readCache: { maxEntries: number; maxBytes: number };
  /** COMPILE_CACHE_DIR and COMPILE_CACHE_MAX_BYTES; undefined when the max is 0. */
  compileCache?: { dir: string; maxBytes: number };
  localChainBlockTime: number;
  /** Explorer block index: INDEXER_ENABLED, INDEXER_START_BLOCK. */
  indexer: { enabled: boolean; startBlock: number };
  /** Hostile-client limits: requests per second (public, developer) and per minute (login); 0 is off. */
  limits: { publicPerSecond: number; loginPerMinute: number; developerPerSecond: number; wsConnectionsPerIp: number };
  /** TRUST_PROXY: unset (the socket's address), `true`, a hop count or a list of proxy addresses/subnets. */
  trustProxy?: string;
  /** CORS_ORIGINS: undefined allows every origin (`*`). */
  corsOrigins?: string[];
  metrics: { token?: string; port?: number };
  /** Webhook targets: private addresses are refused in production unless WEBHOOK_ALLOW_PRIVATE. */
  webhooks: { allowPrivateTargets: boolean };
}

interface DevSecrets {
  jwtSecret: string;
  walletEncryptionKey: string;
}

/**
 * Outside production, missing secrets are generated once and kept in DATA_DIR so that tokens and
 * encrypted wallets survive restarts of a local installation.
 */
function loadDevSecrets(dataDir: string): DevSecrets {
  const file = path.join(dataDir, 'dev-secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DevSecrets;
  const secrets: DevSecrets = {
    jwtSecret: randomBytes(32).toString('base64url'),
    walletEncryptionKey: randomBytes(32).toString('hex'),
  };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

function decodeKey(v: string): Buffer {
  return hex32.test(v) ? Buffer.from(v.replace(/^0x/, ''), 'hex') : Buffer.from(v, 'base64');
}

/** Parses the environment once; throws ConfigError listing every problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = envSchema.safeParse(env);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(`${issue.path.join('.')}: ${issue.message}`);
    }
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  const production = e.NODE_ENV === 'production';
  if (production) {
    const required: Array<[string, unknown]> = [
      ['JWT_SECRET', e.JWT_SECRET],
      ['WALLET_ENCRYPTION_KEY', e.WALLET_ENCRYPTION_KEY],
      ['EDS_TRUSTED_CA_FILE', e.EDS_TRUSTED_CA_FILE],
    ];
    for (const [name, value] of required) {
      if (value === undefined) problems.push(`${name}: required in production`);
    }
    problems.push(...productionProblems(e));
  }
  const networks = {
    testnet: readNetworkOptions('testnet', env, problems),
    mainnet: readNetworkOptions('mainnet', env, problems),
  };
  if (e.EDS_TRUSTED_CA_FILE !== undefined && !existsSync(e.EDS_TRUSTED_CA_FILE)) {
    problems.push(`EDS_TRUSTED_CA_FILE: file ${e.EDS_TRUSTED_CA_FILE} does not exist`);
  }
  if (e.EDS_CRL_FILE !== undefined && !existsSync(e.EDS_CRL_FILE)) {
    problems.push(`EDS_CRL_FILE: file ${e.EDS_CRL_FILE} does not exist`);
  }
  if (e.EDS_REQUIRE_CRL && e.EDS_CRL_FILE === undefined) {
    problems.push('EDS_REQUIRE_CRL: needs EDS_CRL_FILE (without CRLs every login would be refused)');
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const dataDir = path.resolve(e.DATA_DIR);
  const dev = e.JWT_SECRET && e.WALLET_ENCRYPTION_KEY ? undefined : loadDevSecrets(dataDir);
  const publicBaseUrl = e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`;
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    logLevel: e.LOG_LEVEL,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    databaseReadUrl: e.DATABASE_READ_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    redisUrl: e.REDIS_URL,
    webConcurrency: e.WEB_CONCURRENCY,
    backgroundWork: true,
    rpcUrls: { testnet: e.TESTNET_RPC_URL, mainnet: e.MAINNET_RPC_URL },
    networks,
    jwtSecret: e.JWT_SECRET ?? dev!.jwtSecret,
    walletEncryptionKey: decodeKey(e.WALLET_ENCRYPTION_KEY ?? dev!.walletEncryptionKey),
    edsTrustedCaFile: e.EDS_TRUSTED_CA_FILE,
    edsCrlFile: e.EDS_CRL_FILE,
    edsRequireCrl: e.EDS_REQUIRE_CRL,
    adminSubjects: (e.ADMIN_SUBJECTS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    faucetPrivateKey: e.FAUCET_PRIVATE_KEY,
    publicBaseUrl,
    devBaseUrl: e.DEV_BASE_URL ?? publicBaseUrl,
    apiKeyRateLimit: e.API_KEY_RATE_LIMIT,
    readCache: { maxEntries: e.GATEWAY_READ_CACHE_MAX_ENTRIES, maxBytes: e.GATEWAY_READ_CACHE_MAX_BYTES },
    compileCache:
      e.COMPILE_CACHE_MAX_BYTES > 0
        ? {
            dir: path.resolve(e.COMPILE_CACHE_DIR ?? path.join(dataDir, 'compile-cache')),
            maxBytes: e.COMPILE_CACHE_MAX_BYTES,
          }
        : undefined,
    localChainBlockTime: e.LOCAL_CHAIN_BLOCK_TIME,
    indexer: { enabled: e.INDEXER_ENABLED, startBlock: e.INDEXER_START_BLOCK },
    limits: {
      publicPerSecond: e.PUBLIC_RATE_LIMIT,
      loginPerMinute: e.LOGIN_RATE_LIMIT,
      developerPerSecond: e.DEVELOPER_RATE_LIMIT,
      wsConnectionsPerIp: e.WS_CONNECTIONS_PER_IP,
    },
    trustProxy: e.TRUST_PROXY,
    corsOrigins: e.CORS_ORIGINS?.split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    metrics: { token: e.METRICS_TOKEN, port: e.METRICS_PORT },
    // Outside production (tests, local use) receivers on this machine or its network are the norm.
    webhooks: { allowPrivateTargets: !production || e.WEBHOOK_ALLOW_PRIVATE },
  };
}
