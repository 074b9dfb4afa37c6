import { getAddress, type FunctionFragment, type ParamType } from 'ethers';
import { keyedByName } from './abi-result';

/** One 32-byte word (64 hex digits) → its JSON value (API.md §7), or undefined where ethers must decide. */
type Read = (word: string) => unknown;

const ZERO_HIGH_BYTES = '0'.repeat(24);
const NON_ZERO = /[^0]/;
const HEX = /^0x[0-9a-fA-F]*$/;

/**
 * The reader of an elementary static type, as ethers v6 decodes it (abi/coders): integers masked
 * to their size, then sign-extended (NumberCoder); an address only when the 12 high bytes are zero
 * (AddressCoder's toBeHex(value, 20) throws otherwise: left to ethers); bool true for any non-zero
 * word (BooleanCoder); bytesN the first N bytes (FixedBytesCoder). Null for anything else.
 */
function readerOf(param: ParamType): Read | null {
  if (param.isArray() || param.isTuple()) return null;
  const type = param.baseType;
  if (type === 'address') {
    return (word) => (word.startsWith(ZERO_HIGH_BYTES) ? getAddress(`0x${word.slice(24)}`) : undefined);
  }
  if (type === 'bool') return (word) => NON_ZERO.test(word);
  const integer = /^(u?)int([0-9]+)$/.exec(type);
  if (integer) {
    const bits = Number(integer[2]);
    if (bits < 8 || bits > 256 || bits % 8 !== 0) return null;
    const digits = bits / 4;
    if (integer[1] === 'u') return (word) => BigInt(`0x${word.slice(64 - digits)}`).toString();
    const size = BigInt(bits);
    const half = 1n << (size - 1n);
    return (word) => {
      const value = BigInt(`0x${word.slice(64 - digits)}`);
      return (value >= half ? value - (1n << size) : value).toString();
    };
  }
  const fixed = /^bytes([0-9]+)$/.exec(type);
  if (fixed) {
    const size = Number(fixed[1]);
    if (size < 1 || size > 32) return null;
    return (word) => `0x${word.slice(0, size * 2).toLowerCase()}`;
  }
  return null;
}

/** The node's raw answer → the `result` of API.md §7, or undefined: ethers decodes it (or refuses it) instead. */
export type StaticResult = (raw: string) => unknown;

const decoders = new WeakMap<FunctionFragment, StaticResult | null>();

/**
 * The result decoder of a function whose outputs are one or more elementary static types: each is
 * one word of the answer, read in place. ethers' decoder builds a Reader, coder objects and a Result
 * proxy per call (about 9 µs for one uint256, 1 µs here), the costliest step of a read whose result
 * is new. Null for any other function. The decoder answers undefined for anything ethers would
 * refuse or read differently (not hex, a length that is not a whole number of words, too short, an
 * address with high bytes set): `decodeFunctionResult` then gives the answer or the error it always
 * gave. Tests hold both to the same values.
 */
export function staticResult(fragment: FunctionFragment): StaticResult | null {
  let decoder = decoders.get(fragment);
  if (decoder !== undefined) return decoder;
  const outputs = fragment.outputs;
  const readers = outputs.map(readerOf);
  if (outputs.length > 0 && readers.every((r): r is Read => r !== null)) {
    const length = 2 + 64 * outputs.length;
    decoder = (raw) => {
      // ethers decodes only answers of whole words, and reads past the outputs nothing.
      if (raw.length < length || (raw.length - 2) % 64 !== 0 || !HEX.test(raw)) return undefined;
      const values: unknown[] = [];
      for (let i = 0; i < readers.length; i++) {
        const value = readers[i]!(raw.slice(2 + 64 * i, 66 + 64 * i));
        if (value === undefined) return undefined;
        values.push(value);
      }
      return values.length === 1 ? values[0] : keyedByName(outputs, values);
    };
  } else {
    decoder = null;
  }
  decoders.set(fragment, decoder);
  return decoder;
}
