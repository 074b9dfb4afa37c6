import type { Network } from '../../../kernel/network';
import { AppError } from '../../../kernel/errors/app-error';
import { NetworkName } from '../../../kernel/network-name';
import { isAddressLike, parseAddress } from '../../../kernel/address';

/** Bounds of the explorer's numeric arguments (docs/api.md, "Explorer"). */
export const LIMITS = {
  liveBlocks: { default: 10, min: 1, max: 100 },
  activity: { default: 25, min: 1, max: 100 },
  verifiedAssets: { default: 10, min: 1, max: 100 },
  scan: { default: 500, min: 1, max: 5000 },
  searchQueryLength: 200,
} as const;

const HASH = /^0x[0-9a-fA-F]{64}$/;
const DECIMAL = /^\d+$/;

const invalid = (field: string, reason: string, value?: unknown) =>
  new AppError('VALIDATION_FAILED', `Invalid ${field}: ${reason}`, {
    field,
    reason,
    ...(value !== undefined ? { value } : {}),
  });

/** Options of the `network` argument of the explorer's fields. */
export const NETWORK_ARG = {
  nullable: true,
  defaultValue: NetworkName.mainnet,
  description: 'Network to read: `mainnet` (default) or `testnet`.',
} as const;

/** The explorer's network argument: optional, `mainnet` when absent (docs/api.md, "Conventions"). */
export const explorerNetwork = (n: NetworkName | null | undefined): Network => n ?? NetworkName.mainnet;

/** An integer argument within [min, max], or its default when absent. */
export function boundedInt(
  field: string,
  value: number | null | undefined,
  bounds: { default: number; min: number; max: number },
): number {
  if (value === null || value === undefined) return bounds.default;
  if (!Number.isSafeInteger(value) || value < bounds.min || value > bounds.max) {
    throw invalid(field, `must be an integer from ${bounds.min} to ${bounds.max}`, value);
  }
  return value;
}

/** A 32-byte hash in any case, returned lowercase (the index's form). */
export function parseHash(field: string, value: string): string {
  const v = value.trim();
  if (!HASH.test(v)) throw invalid(field, 'must be 0x followed by 64 hexadecimal characters');
  return v.toLowerCase();
}

export const isHash = (value: string): boolean => HASH.test(value);

/** `block/{id}`: a block number, a block hash or `latest`. */
export type BlockId = { kind: 'number'; number: number } | { kind: 'hash'; hash: string } | { kind: 'latest' };

export function parseBlockId(value: string): BlockId {
  const v = value.trim();
  if (v.toLowerCase() === 'latest') return { kind: 'latest' };
  if (DECIMAL.test(v)) {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw invalid('id', 'block number is too large');
    return { kind: 'number', number: n };
  }
  if (HASH.test(v)) return { kind: 'hash', hash: v.toLowerCase() };
  throw invalid('id', 'must be a block number, a 0x block hash (64 hex characters) or "latest"');
}

/** What a search text is: a number, a 32-byte hash, a 20-byte address or free text. */
export type SearchQuery =
  | { kind: 'number'; number: number }
  | { kind: 'hash'; hash: string }
  | { kind: 'address'; address: string }
  | { kind: 'text'; text: string };

export function parseSearchQuery(value: string): SearchQuery {
  const q = value.trim();
  if (q === '') throw invalid('q', 'must not be empty');
  if (q.length > LIMITS.searchQueryLength) {
    throw invalid('q', `must be at most ${LIMITS.searchQueryLength} characters`);
  }
  if (DECIMAL.test(q)) {
    const n = Number(q);
    if (Number.isSafeInteger(n)) return { kind: 'number', number: n };
  }
  if (HASH.test(q)) return { kind: 'hash', hash: q.toLowerCase() };
  if (isAddressLike(q)) return { kind: 'address', address: parseAddress(q) };
  return { kind: 'text', text: q };
}
