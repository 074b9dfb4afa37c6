import type { Network } from './network';

export type FeeMode = 'auto' | 'legacy' | 'eip1559';

/** How transactions of one network are priced (README: "Running against Besu or GoQuorum"). */
export interface FeePolicy {
  /** auto: EIP-1559 when the latest block has a base fee, else legacy. */
  mode: FeeMode;
  /** legacy: the fixed gas price (0 on free-gas networks); auto/eip1559: the minimum tip and price. */
  gasPriceWei?: bigint;
  /** A send that would need a higher price per gas is refused rather than overpaid. */
  maxFeePerGasWei?: bigint;
}

/** Connection and fee settings of one network, from `<NETWORK>_…` variables. */
export interface NetworkOptions {
  /** Tried in order, with failover; empty: start a local dev chain. */
  urls: string[];
  /**
   * The nodes' WebSockets (`<NETWORK>_WS_URL`), one per RPC URL: new heads are followed over them,
   * and polled without them (docs/api.md "Operations").
   */
  wsUrls: string[];
  /** Sent with every request (Besu's JWT: Authorization: Bearer …); never logged. */
  headers: Record<string, string>;
  /** Sockets per node per instance. */
  maxConnections: number;
  /** Most reads (eth_call) sent to a node in one JSON-RPC batch; 1: each alone. */
  maxBatch: number;
  fees: FeePolicy;
}

export const DEFAULT_MAX_CONNECTIONS = 16;
export const DEFAULT_MAX_BATCH = 16;
export const DEFAULT_FEE_POLICY: FeePolicy = { mode: 'auto' };

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function wei(name: string, value: string | undefined, problems: string[]): bigint | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (!/^\d{1,78}$/.test(value.trim())) {
    problems.push(`${name}: must be a whole number of wei`);
    return undefined;
  }
  return BigInt(value.trim());
}

/**
 * Reads `<PREFIX>_RPC_URL` and `_WS_URL` (comma-separated), `_RPC_HEADERS` (JSON object), `_RPC_MAX_CONNECTIONS`,
 * `_RPC_MAX_BATCH`, `_FEE_MODE`, `_GAS_PRICE_WEI` and `_MAX_FEE_PER_GAS_WEI`. Problems name the variable, never its
 * value (headers hold credentials).
 */
export function readNetworkOptions(network: Network, env: NodeJS.ProcessEnv, problems: string[]): NetworkOptions {
  const prefix = network.toUpperCase();
  const urls = (env[`${prefix}_RPC_URL`] ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  for (const url of urls) {
    let protocol: string | undefined;
    try {
      protocol = new URL(url).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'http:' && protocol !== 'https:') {
      problems.push(`${prefix}_RPC_URL: every entry must be a URL starting with http:// or https://`);
      break;
    }
  }

  const wsUrls = (env[`${prefix}_WS_URL`] ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  for (const url of wsUrls) {
    let protocol: string | undefined;
    try {
      protocol = new URL(url).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== 'ws:' && protocol !== 'wss:') {
      problems.push(`${prefix}_WS_URL: every entry must be a URL starting with ws:// or wss://`);
      break;
    }
  }
  if (wsUrls.length > 0 && wsUrls.length !== urls.length) {
    problems.push(`${prefix}_WS_URL: needs one entry per ${prefix}_RPC_URL entry, in the same order`);
  }

  const headers: Record<string, string> = {};
  const rawHeaders = env[`${prefix}_RPC_HEADERS`]?.trim();
  if (rawHeaders) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawHeaders);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      problems.push(`${prefix}_RPC_HEADERS: must be a JSON object of header names to string values`);
    } else {
      for (const [name, value] of Object.entries(parsed)) {
        if (!HEADER_NAME.test(name) || typeof value !== 'string' || /[\r\n]/.test(value)) {
          problems.push(
            `${prefix}_RPC_HEADERS: header ${HEADER_NAME.test(name) ? name : '(invalid name)'} is not valid`,
          );
          continue;
        }
        headers[name.toLowerCase()] = value;
      }
    }
  }

  const count = (name: string, fallback: number): number => {
    const raw = env[`${prefix}_${name}`]?.trim();
    if (!raw) return fallback;
    const n = Number(raw);
    if (Number.isInteger(n) && n >= 1 && n <= 1024) return n;
    problems.push(`${prefix}_${name}: must be a whole number from 1 to 1024`);
    return fallback;
  };
  const maxConnections = count('RPC_MAX_CONNECTIONS', DEFAULT_MAX_CONNECTIONS);
  const maxBatch = count('RPC_MAX_BATCH', DEFAULT_MAX_BATCH);

  const rawMode = (env[`${prefix}_FEE_MODE`] ?? '').trim() || 'auto';
  let mode: FeeMode = 'auto';
  if (rawMode === 'auto' || rawMode === 'legacy' || rawMode === 'eip1559') mode = rawMode;
  else problems.push(`${prefix}_FEE_MODE: must be auto, legacy or eip1559`);
  const gasPriceWei = wei(`${prefix}_GAS_PRICE_WEI`, env[`${prefix}_GAS_PRICE_WEI`], problems);
  const maxFeePerGasWei = wei(`${prefix}_MAX_FEE_PER_GAS_WEI`, env[`${prefix}_MAX_FEE_PER_GAS_WEI`], problems);
  if (gasPriceWei !== undefined && maxFeePerGasWei !== undefined && gasPriceWei > maxFeePerGasWei) {
    problems.push(`${prefix}_GAS_PRICE_WEI: is above ${prefix}_MAX_FEE_PER_GAS_WEI`);
  }

  return { urls, wsUrls, headers, maxConnections, maxBatch, fees: { mode, gasPriceWei, maxFeePerGasWei } };
}
