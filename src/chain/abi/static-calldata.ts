import type { FunctionFragment, ParamType } from 'ethers';
import { elementaryType } from './elementary-type';

/** One checked argument value (as `encodeArgs` returns it) → its 32-byte ABI word, as 64 hex digits. */
type Word = (value: unknown) => string;

const TWO_256 = 1n << 256n;
const pad = (hex: string) => hex.padStart(64, '0');

/** The word writer of `param`, or null when it is not an elementary static type (ethers encodes it). */
function wordOf(param: ParamType): Word | null {
  const type = elementaryType(param);
  switch (type?.kind) {
    case 'address':
      return (v) => pad((v as string).slice(2).toLowerCase());
    case 'bool':
      return (v) => pad(v === true ? '1' : '0');
    case 'int':
      // Two's complement over the whole word, as the ABI sign-extends.
      return type.signed
        ? (v) => pad(((v as bigint) < 0n ? TWO_256 + (v as bigint) : (v as bigint)).toString(16))
        : (v) => pad((v as bigint).toString(16));
    case 'bytes':
      return (v) => (v as string).slice(2).toLowerCase().padEnd(64, '0');
    default:
      return null;
  }
}

export type StaticCalldata = (values: readonly unknown[]) => string;

const encoders = new WeakMap<FunctionFragment, StaticCalldata | null>();

/**
 * Call data of a function whose inputs are all elementary static types (address, bool, intN,
 * uintN, bytesN), written word by word: each such argument is one 32-byte word in the head and
 * there is no tail, so this is the whole of the ABI's rule for them. ethers' coder builds coder
 * objects, readers and checksummed addresses per call, which was most of a cold gateway read's
 * CPU (BENCHMARKS.md). Null for any other function: ethers encodes it. The values must be the
 * ones `encodeArgs` checked (ranges, lengths, hex); tests hold the output to ethers' byte for byte.
 */
export function staticCalldata(fragment: FunctionFragment): StaticCalldata | null {
  let encoder = encoders.get(fragment);
  if (encoder !== undefined) return encoder;
  const words = fragment.inputs.map(wordOf);
  if (words.every((w): w is Word => w !== null)) {
    const selector = fragment.selector;
    encoder = (values) => {
      let data = selector;
      for (let i = 0; i < words.length; i++) data += words[i]!(values[i]);
      return data;
    };
  } else {
    encoder = null;
  }
  encoders.set(fragment, encoder);
  return encoder;
}
