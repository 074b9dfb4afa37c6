import type { ParamType } from 'ethers';
import { keccak_256 } from 'js-sha3';

/**
 * The one JSON form of decoded ABI values, the same on every face: gateway results, the explorer's
 * decoded inputs and logs, event lists, subscriptions and webhook messages (docs/api.md, "Gateway"
 * and "Contract events, transactions and webhooks"). Integers are decimal strings, addresses EIP-55,
 * bools JSON booleans, bytes and bytesN lowercase 0x hex, strings as they are, arrays JSON arrays,
 * tuples objects keyed by their component names (arrays when a name is missing or repeated). The
 * bounded decoder and the gateway's word-by-word result reader both build their values here.
 */

/** A static ABI type read from one 32-byte word. */
export type WordType =
  | { kind: 'int'; bits: number; signed: boolean }
  | { kind: 'address' }
  | { kind: 'bool' }
  | { kind: 'fixed'; bytes: number };

const ZERO_WORD = '0'.repeat(64);
const ZERO_HIGH_BYTES = '0'.repeat(24);

/**
 * EIP-55: the address's hex digits upper-cased where the keccak-256 of its lowercase text has a
 * nibble of 8 or more (ethers' getAddress). js-sha3 hashes about 4 times faster than ethers' keccak,
 * which keeps 8,192 distinct addresses (256 KiB of them) well under 100 ms of the event loop.
 */
export function checksummed(lower: string): string {
  const hash = keccak_256(lower);
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower.charCodeAt(i);
    // A letter (a-f) whose hash nibble is 8 or more ('8', '9', 'a'-'f' all code 56 or above).
    out += String.fromCharCode(c > 57 && hash.charCodeAt(i) >= 56 ? c - 32 : c);
  }
  return out;
}

/** An intN/uintN word (64 hex digits) as a decimal string: masked to its size, then sign-extended, as ethers reads it. */
export function intJson(word: string, bits: number, signed: boolean): string {
  const n = BigInt(`0x${word.slice(64 - bits / 4)}`);
  if (!signed) return n.toString();
  const size = BigInt(bits);
  return (n >= 1n << (size - 1n) ? n - (1n << size) : n).toString();
}

/** An address word's 40 lowercase hex digits, or null when its 12 high bytes are not zero (ethers refuses it). */
export function addressDigits(word: string): string | null {
  return word.startsWith(ZERO_HIGH_BYTES) ? word.slice(24).toLowerCase() : null;
}

/** A bool word: true for any non-zero word, as ethers reads it. */
export function boolJson(word: string): boolean {
  return word !== ZERO_WORD;
}

/** `bytes` bytes of raw hex (no 0x) as lowercase 0x hex: bytes, and bytesN from its word's first N bytes. */
export function bytesJson(hex: string, bytes = hex.length / 2): string {
  return `0x${hex.slice(0, bytes * 2).toLowerCase()}`;
}

/** One static word (64 hex digits) as its JSON value; undefined for an address word with high bytes set. */
export function wordJson(type: WordType, word: string): unknown {
  switch (type.kind) {
    case 'int':
      return intJson(word, type.bits, type.signed);
    case 'address': {
      const digits = addressDigits(word);
      return digits === null ? undefined : checksummed(digits);
    }
    case 'bool':
      return boolJson(word);
    case 'fixed':
      return bytesJson(word, type.bytes);
  }
}

/** JSON values of `params`, in order → an object keyed by their names when every name is present and distinct, else the array. */
export function keyedByName(params: readonly ParamType[], values: unknown[]): unknown {
  const names = params.map((p) => p.name);
  if (names.some((n) => !n) || new Set(names).size !== names.length) return values;
  return Object.fromEntries(names.map((n, i) => [n, values[i]]));
}

/**
 * An event's arguments: keyed by parameter name, by position (`"0"`, `"1"`…) for a parameter whose
 * name is empty or repeated (docs/api.md, "Contract events, transactions and webhooks").
 */
export function eventArgs(inputs: readonly ParamType[], values: unknown[]): Record<string, unknown> {
  const names = inputs.map((p) => p.name);
  const args: Record<string, unknown> = {};
  inputs.forEach((param, n) => {
    const key = param.name && names.indexOf(param.name) === names.lastIndexOf(param.name) ? param.name : String(n);
    args[key] = values[n];
  });
  return args;
}
