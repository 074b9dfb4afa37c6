import { randomBytes } from 'node:crypto';
import { FunctionFragment, Interface } from 'ethers';
import { encodeArgs } from './abi-args';
import { staticCalldata } from './static-calldata';

/** Random values of every elementary static type, edges included, held to ethers' encoding byte for byte. */
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

function valueOf(type: string): unknown {
  if (type === 'address') {
    const a = hex(20);
    return pick([a, a.toUpperCase().replace('0X', '0x'), '0x' + '0'.repeat(40), '0x' + 'f'.repeat(40)]);
  }
  if (type === 'bool') return Math.random() < 0.5;
  const integer = /^(u?)int([0-9]+)$/.exec(type);
  if (integer) {
    const bits = BigInt(integer[2]!);
    const unsigned = integer[1] === 'u';
    const max = unsigned ? (1n << bits) - 1n : (1n << (bits - 1n)) - 1n;
    const min = unsigned ? 0n : -(1n << (bits - 1n));
    const random = BigInt(hex(Number(bits) / 8)) % (max - min + 1n);
    return pick([min, max, 0n, 1n, min + random, -1n < min ? 0n : -1n]).toString();
  }
  const size = Number(/^bytes([0-9]+)$/.exec(type)![1]);
  return pick([hex(size), hex(size).toUpperCase().replace('0X', '0x'), '0x' + '00'.repeat(size)]);
}

const STATIC_TYPES = [
  'address',
  'bool',
  ...Array.from({ length: 32 }, (_, i) => `uint${(i + 1) * 8}`),
  ...Array.from({ length: 32 }, (_, i) => `int${(i + 1) * 8}`),
  ...Array.from({ length: 32 }, (_, i) => `bytes${i + 1}`),
];

describe('staticCalldata', () => {
  it('writes what ethers writes for every elementary static type, at random and at the edges', () => {
    for (let round = 0; round < 300; round++) {
      const types = Array.from({ length: 1 + Math.floor(Math.random() * 6) }, () => pick(STATIC_TYPES));
      const fragment = FunctionFragment.from(`function f${round}(${types.join(',')}) view returns (uint256)`);
      const values = encodeArgs(
        fragment,
        types.map((t) => valueOf(t)),
      );
      const fast = staticCalldata(fragment);
      expect(fast).not.toBeNull();
      expect(fast!(values)).toBe(new Interface([fragment]).encodeFunctionData(fragment, values));
    }
  });

  it('writes the selector alone for a function without inputs', () => {
    const fragment = FunctionFragment.from('function totalSupply() view returns (uint256)');
    expect(staticCalldata(fragment)!([])).toBe('0x18160ddd');
  });

  it('leaves every other function to ethers: dynamic types, arrays and tuples', () => {
    for (const signature of [
      'function f(string)',
      'function f(bytes)',
      'function f(uint256[])',
      'function f(uint256[2])',
      'function f(address,(uint256,bool))',
      'function f(uint256,string)',
    ]) {
      expect(staticCalldata(FunctionFragment.from(signature))).toBeNull();
    }
  });
});
