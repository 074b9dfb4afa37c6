import type { Interface } from 'ethers';
import { LRUCache } from 'lru-cache';
import { encodeArgs } from './abi-args';
import type { AbiMethod } from './abi-method';
import { checkDataSize, decodeFunctionOutput } from './bounded-decoder';
import { staticCalldata } from './static-calldata';
import { staticResult } from './static-result';

/**
 * Entries kept per direction, and the memory they may take (keys and values counted as UTF-16
 * string bytes); a key longer than MAX_KEY (large arguments or results) is not kept at all.
 */
const MAX_ENTRIES = 10_000;
const MAX_BYTES = 8 * 1024 * 1024;
const MAX_KEY = 2_048;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Call data in, results out, for the gateway's calls. Both are pure functions of the contract's ABI
 * and their input, and ethers' ABI coder is the costliest step of a gateway read (coder objects and
 * Result proxies built per call), so recent ones are remembered: the same query against the same
 * contract (an app polling a balance) encodes and decodes once. Failures are never remembered.
 */
export class CallCodec {
  private readonly calldata = new LRUCache<string, string>({
    max: MAX_ENTRIES,
    maxSize: MAX_BYTES,
    sizeCalculation: (data, key) => (key.length + data.length) * 2,
  });
  private readonly results = new LRUCache<string, { value: unknown; size: number }>({
    max: MAX_ENTRIES,
    maxSize: MAX_BYTES,
    sizeCalculation: (entry, key) => key.length * 2 + entry.size,
  });

  /** `args` checked against the method's inputs (400 INVALID_ARGUMENT naming the argument) and encoded. */
  encode(contractId: string, iface: Interface, method: AbiMethod, args: unknown): string {
    const key = `${contractId}\u0000${method.signature}\u0000${JSON.stringify(args ?? null)}`;
    const cached = key.length <= MAX_KEY ? this.calldata.get(key) : undefined;
    if (cached !== undefined) return cached;
    const values = encodeArgs(method.fragment, args);
    const data = staticCalldata(method.fragment)?.(values) ?? iface.encodeFunctionData(method.fragment, values);
    if (key.length <= MAX_KEY) this.calldata.set(key, data);
    return data;
  }

  /**
   * The node's raw answer → the `result` of docs/api.md, "Gateway" (frozen: it may be shared by later calls):
   * the value itself for a remembered answer or static outputs (the hot path stays synchronous),
   * else a promise of it (the bounded decoder checksums many addresses between turns of the loop).
   */
  decode(contractId: string, iface: Interface, method: AbiMethod, raw: string): unknown {
    // Over 256 KiB is refused before anything else reads it (docs/api.md "Hostile chain data").
    checkDataSize(raw);
    const now = this.decodeNow(contractId, method, raw);
    if (now !== undefined) return now;
    const key = `${contractId}\u0000${method.signature}\u0000${raw}`;
    return decodeFunctionOutput(method.fragment, raw).then((decoded) => this.remember(key, raw, decoded));
  }

  /**
   * decode, when it needs no waiting (a remembered answer, static outputs); undefined, nothing
   * started and nothing refused, when only decode can tell (an answer over 256 KiB included).
   */
  decodeNow(contractId: string, method: AbiMethod, raw: string): unknown {
    try {
      checkDataSize(raw);
    } catch {
      return undefined;
    }
    const key = `${contractId}\u0000${method.signature}\u0000${raw}`;
    const cached = key.length <= MAX_KEY ? this.results.get(key) : undefined;
    if (cached !== undefined) return cached.value;
    const fast = staticResult(method.fragment)?.(raw);
    return fast === undefined ? undefined : this.remember(key, raw, fast);
  }

  /** A decoded answer, frozen and remembered under `key`. */
  private remember(key: string, raw: string, decoded: unknown): unknown {
    const value = deepFreeze(decoded);
    // An estimate: the JSON value holds about as many characters as the hex it was decoded from.
    if (key.length <= MAX_KEY) this.results.set(key, { value, size: raw.length * 4 });
    return value;
  }
}
