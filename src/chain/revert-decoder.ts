import { isCallException, isError, type ErrorFragment, type Interface } from 'ethers';
import {
  AbiDataError,
  checkDataSize,
  decodeParams,
  decodeParamsAsync,
  paramTypes,
  quoted,
} from './abi/bounded-decoder';

/** Meaning of Solidity panic codes (https://docs.soliditylang.org/en/latest/control-structures.html#panic-via-assert-and-error-via-require). */
const PANIC_REASONS: Record<number, string> = {
  0x00: 'generic compiler panic',
  0x01: 'assertion failed',
  0x11: 'arithmetic overflow or underflow',
  0x12: 'division or modulo by zero',
  0x21: 'invalid enum value',
  0x22: 'invalid storage byte array encoding',
  0x31: 'pop on an empty array',
  0x32: 'array index out of bounds',
  0x41: 'out of memory',
  0x51: 'call to an uninitialised function',
};

/** A revert as the caller sees it: a readable reason plus the decoded error when there is one. */
export interface DecodedRevert {
  reason: string;
  /** Custom error or Error/Panic, decoded with the contract's ABI. */
  error?: { name: string; signature: string; args: unknown[] };
  panicCode?: number;
  data?: string;
}

/** Revert data of an ethers error, wherever the node put it. */
function revertData(e: unknown): string | undefined {
  if (!e || typeof e !== 'object') return undefined;
  const o = e as { data?: unknown; info?: { error?: { data?: unknown } }; error?: { data?: unknown } };
  for (const d of [o.data, o.info?.error?.data, o.error?.data]) {
    if (typeof d === 'string' && d.startsWith('0x')) return d;
    if (d && typeof d === 'object' && typeof (d as { data?: unknown }).data === 'string') {
      return (d as { data: string }).data;
    }
  }
  return undefined;
}

/** The custom error of `iface` a selector names, if any. */
function errorOf(iface: Interface | undefined, selector: string): ErrorFragment | null {
  try {
    return iface?.getError(selector) ?? null;
  } catch {
    return null;
  }
}

/**
 * Decodes revert data with the standard Error/Panic shapes and, if given, the contract's ABI, with
 * the bounded decoder: data over 256 KiB or a value over the element budget → 422
 * RESULT_TOO_LARGE (thrown); the reason, and an Error(string) message, cut to 4 KiB (docs/api.md
 * "Hostile chain data").
 */
export async function decodeRevertData(data: string | undefined, iface?: Interface): Promise<DecodedRevert> {
  if (!data || data === '0x') return { reason: 'execution reverted without a reason' };
  checkDataSize(data);
  const selector = data.slice(0, 10);
  const body = `0x${data.slice(10)}`;
  try {
    if (selector === '0x08c379a0') {
      const message = quoted(String(decodeParams(paramTypes('string'), body)[0]));
      return { reason: message, error: { name: 'Error', signature: 'Error(string)', args: [message] }, data };
    }
    if (selector === '0x4e487b71') {
      const code = String(decodeParams(paramTypes('uint256'), body)[0]);
      const n = Number(code);
      return {
        reason: `panic 0x${n.toString(16)}: ${PANIC_REASONS[n] ?? 'unknown panic'}`,
        error: { name: 'Panic', signature: 'Panic(uint256)', args: [code] },
        panicCode: n,
        data,
      };
    }
    const fragment = errorOf(iface, selector);
    if (fragment) {
      // Many addresses are checksummed between turns of the event loop.
      const args = await decodeParamsAsync(fragment.inputs, body);
      return {
        reason: quoted(`${fragment.name}(${args.map((a) => JSON.stringify(a)).join(', ')})`),
        error: { name: fragment.name, signature: fragment.format('sighash'), args },
        data,
      };
    }
  } catch (e) {
    if (!(e instanceof AbiDataError)) throw e;
  }
  return { reason: `execution reverted with unknown error ${selector}`, data };
}

/** The revert inside an ethers error, or undefined when the error is not a revert. */
export async function decodeRevert(e: unknown, iface?: Interface): Promise<DecodedRevert | undefined> {
  const data = revertData(e);
  if (isCallException(e) || data !== undefined) return decodeRevertData(data, iface);
  const message = e instanceof Error ? e.message : '';
  if (/execution reverted|revert/i.test(message)) return { reason: 'execution reverted without a reason' };
  return undefined;
}

/** True for "the sender cannot pay" errors of ethers and of the nodes. */
export function isInsufficientFunds(e: unknown): boolean {
  if (isError(e, 'INSUFFICIENT_FUNDS')) return true;
  const message = e instanceof Error ? e.message : String(e);
  return /insufficient funds|lack of funds|insufficient balance/i.test(message);
}
