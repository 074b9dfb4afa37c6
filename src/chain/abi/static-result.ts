import type { FunctionFragment, ParamType } from 'ethers';
import { keyedByName, wordJson, type WordType } from './abi-json';
import { elementaryType } from './elementary-type';

/** One 32-byte word (64 hex digits) → its JSON value (docs/api.md, "Gateway"), or undefined where ethers must decide. */
type Read = (word: string) => unknown;

const HEX = /^0x[0-9a-fA-F]*$/;

/**
 * The reader of `param` as ethers v6 decodes it (abi/coders), or null when it is not an elementary
 * static type: each word read by abi-json.ts's wordJson (integers masked to their size, then
 * sign-extended, as NumberCoder; bool true for any non-zero word, as BooleanCoder; bytesN the first
 * N bytes, as FixedBytesCoder); an address only when the 12 high bytes are zero (AddressCoder's
 * toBeHex(value, 20) throws otherwise: undefined, left to ethers).
 */
function readerOf(param: ParamType): Read | null {
  const type = elementaryType(param);
  if (type === null) return null;
  const word: WordType = type.kind === 'bytes' ? { kind: 'fixed', bytes: type.size } : type;
  return (w) => wordJson(word, w);
}

/** The node's raw answer → the `result` of docs/api.md, "Gateway", or undefined: ethers decodes it (or refuses it) instead. */
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
