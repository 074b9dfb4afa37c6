import { isAppError } from '../../kernel/errors/app-error';
import type { Network } from '../../kernel/network';

/**
 * A token's metadata read from the contract (docs/api.md, "Tokens"): `name()`, `symbol()`,
 * `decimals()`, `totalSupply()` by eth_call. The answers are hostile data: anything that is not
 * exactly the expected layout (a revert, junk, a string over MAX_TEXT_BYTES, control characters,
 * invalid UTF-8, decimals over 255) is null, and an answer over MAX_ANSWER_HEX is not decoded.
 */

/** What the metadata reader needs from the node: one eth_call-style request. */
export type NodeCall = (
  network: Network,
  method: string,
  params: unknown[],
  opts: { attempts: number; timeoutMs: number },
) => Promise<unknown>;

export interface TokenMetadata {
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: string | null;
  /** Whether every call got the node's answer (a result or an error), so the nulls can be kept. */
  settled: boolean;
}

const SELECTORS = {
  name: '0x06fdde03',
  symbol: '0x95d89b41',
  decimals: '0x313ce567',
  totalSupply: '0x18160ddd',
} as const;

/** Longest name or symbol kept, in bytes. */
export const MAX_TEXT_BYTES = 256;
/** Longest answer decoded, in hex characters (a string of MAX_TEXT_BYTES takes 4 words and some). */
const MAX_ANSWER_HEX = 2 + 64 * 12;
const CALL_BOUNDS = { attempts: 1, timeoutMs: 2_000 } as const;
const HEX = /^0x(?:[0-9a-fA-F]{2})*$/;
// eslint-disable-next-line no-control-regex -- control characters are what is refused
const CONTROL = /[\u0000-\u001f\u007f]/;

const utf8 = new TextDecoder('utf-8', { fatal: true });

function text(bytes: Buffer): string | null {
  try {
    const s = utf8.decode(bytes).trim();
    return s === '' || CONTROL.test(s) ? null : s;
  } catch {
    return null;
  }
}

/** A `string` return value, or a `bytes32` one (older tokens), or null. */
export function decodeText(answer: string): string | null {
  if (!HEX.test(answer) || answer.length > MAX_ANSWER_HEX) return null;
  const bytes = Buffer.from(answer.slice(2), 'hex');
  if (bytes.length === 32) {
    const end = bytes.indexOf(0);
    const body = end === -1 ? bytes : bytes.subarray(0, end);
    if (bytes.subarray(body.length).some((b) => b !== 0)) return null;
    return text(body);
  }
  if (bytes.length < 64 || bytes.length % 32 !== 0) return null;
  const offset = BigInt(`0x${bytes.subarray(0, 32).toString('hex')}`);
  if (offset !== 32n) return null;
  const length = BigInt(`0x${bytes.subarray(32, 64).toString('hex')}`);
  if (length > BigInt(MAX_TEXT_BYTES) || 64 + Math.ceil(Number(length) / 32) * 32 !== bytes.length) return null;
  const body = bytes.subarray(64, 64 + Number(length));
  if (bytes.subarray(64 + Number(length)).some((b) => b !== 0)) return null;
  return text(body);
}

/** A `uint256` return value (exactly one word), or null. */
export function decodeUint(answer: string): bigint | null {
  return typeof answer === 'string' && /^0x[0-9a-fA-F]{64}$/.test(answer) ? BigInt(answer) : null;
}

type Outcome = { answer: string } | { answer: null; settled: boolean };

async function callOf(call: NodeCall, network: Network, to: string, data: string, block: string): Promise<Outcome> {
  try {
    const answer = await call(network, 'eth_call', [{ to, data }, block], CALL_BOUNDS);
    return typeof answer === 'string' ? { answer } : { answer: null, settled: true };
  } catch (err) {
    // The node answered with an error (a revert): final. No answer at all: try again later.
    const answered = isAppError(err) && err.details !== undefined && 'rpcCode' in err.details;
    return { answer: null, settled: answered };
  }
}

/** Reads the metadata of the token at `address` at `block` (`latest` or a hex number). */
export async function readTokenMetadata(
  call: NodeCall,
  network: Network,
  address: string,
  erc20: boolean,
  block = 'latest',
): Promise<TokenMetadata> {
  const [name, symbol, decimals, totalSupply] = await Promise.all([
    callOf(call, network, address, SELECTORS.name, block),
    callOf(call, network, address, SELECTORS.symbol, block),
    erc20
      ? callOf(call, network, address, SELECTORS.decimals, block)
      : Promise.resolve<Outcome>({ answer: null, settled: true }),
    callOf(call, network, address, SELECTORS.totalSupply, block),
  ]);
  const settled = [name, symbol, decimals, totalSupply].every((o) => o.answer !== null || o.settled);
  const dec = decimals.answer === null ? null : decodeUint(decimals.answer);
  const supply = totalSupply.answer === null ? null : decodeUint(totalSupply.answer);
  return {
    name: name.answer === null ? null : decodeText(name.answer),
    symbol: symbol.answer === null ? null : decodeText(symbol.answer),
    decimals: dec !== null && dec <= 255n ? Number(dec) : null,
    totalSupply: supply === null ? null : supply.toString(),
    settled,
  };
}
