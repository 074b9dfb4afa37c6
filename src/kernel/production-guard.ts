/**
 * Private keys of anvil's and hardhat's default mnemonic ("test test ... junk", accounts 0 to 9):
 * published everywhere, drained by bots on any public chain, never a production faucet.
 */
export const WELL_KNOWN_DEV_KEYS: readonly string[] = [
  'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  'dbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
];

const allEqual = (bytes: Uint8Array): boolean => bytes.every((b) => b === bytes[0]);

/** Strict decoding of a 32-byte key: 64 hex characters (0x optional), or canonical base64 / base64url. */
export function decodeKeyStrictly(value: string): Buffer | undefined {
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value.replace(/^0x/, ''), 'hex');
  for (const encoding of ['base64', 'base64url'] as const) {
    const bytes = Buffer.from(value, encoding);
    // Node's decoder skips stray characters; only a value that encodes back to itself is accepted.
    const again = bytes.toString(encoding);
    if (bytes.length === 32 && (again === value || again === value.replace(/=+$/, ''))) return bytes;
  }
  return undefined;
}

/** The environment variables production needs, by name. */
export interface ProductionEnv {
  DATABASE_URL?: string;
  TESTNET_RPC_URL?: string;
  MAINNET_RPC_URL?: string;
  FAUCET_PRIVATE_KEY?: string;
  JWT_SECRET?: string;
  WALLET_ENCRYPTION_KEY?: string;
}

/**
 * What production refuses to start with (docs/api.md, "Operations"): no embedded database, no local chain, no
 * well-known dev-chain key as faucet, no weak secret. Returns every problem found.
 */
export function productionProblems(env: ProductionEnv): string[] {
  const problems: string[] = [];
  const required: Array<[keyof ProductionEnv, string]> = [
    ['DATABASE_URL', 'no embedded database in production'],
    ['TESTNET_RPC_URL', 'no local dev chain in production'],
    ['MAINNET_RPC_URL', 'no local dev chain in production'],
    ['FAUCET_PRIVATE_KEY', 'no dev-chain faucet key in production'],
  ];
  for (const [name, why] of required) {
    if (env[name] === undefined) problems.push(`${name}: required in production (${why})`);
  }
  const faucet = env.FAUCET_PRIVATE_KEY?.replace(/^0x/, '').toLowerCase();
  if (faucet !== undefined && WELL_KNOWN_DEV_KEYS.includes(faucet)) {
    problems.push(
      'FAUCET_PRIVATE_KEY: a well-known dev-chain key (anvil/hardhat default account), refused in production',
    );
  }
  if (env.JWT_SECRET !== undefined) {
    const secret = Buffer.from(env.JWT_SECRET, 'utf8');
    if (secret.length < 32) problems.push('JWT_SECRET: too short (at least 32 bytes)');
    else if (allEqual(secret)) problems.push('JWT_SECRET: weak (every byte is the same)');
    else if (new Set(secret).size < 8) problems.push('JWT_SECRET: weak (fewer than 8 distinct characters)');
  }
  if (env.WALLET_ENCRYPTION_KEY !== undefined) {
    const key = decodeKeyStrictly(env.WALLET_ENCRYPTION_KEY);
    if (!key) {
      problems.push(
        'WALLET_ENCRYPTION_KEY: not strictly decodable as 32 bytes (64 hex characters or canonical base64)',
      );
    } else if (allEqual(key)) {
      problems.push('WALLET_ENCRYPTION_KEY: weak (every byte is the same)');
    }
  }
  return problems;
}
