import { randomBytes } from 'node:crypto';
import { FunctionFragment, getAddress, Interface } from 'ethers';
import { encodeArgs } from './abi-args';
import { decodeResult } from '../../../tests/kit/ethers-abi-json';
import { staticCalldata } from './static-calldata';
import { staticResult } from './static-result';

/** Every elementary static type of Solidity: what the word-by-word codec handles. */
const STATIC_TYPES = [
  'address',
  'bool',
  ...Array.from({ length: 32 }, (_, i) => `uint${(i + 1) * 8}`),
  ...Array.from({ length: 32 }, (_, i) => `int${(i + 1) * 8}`),
  ...Array.from({ length: 32 }, (_, i) => `bytes${i + 1}`),
];

/** Random values of every elementary static type, edges included, held to ethers' encoding byte for byte. */
const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

function valueOf(type: string): unknown {
  if (type === 'address') {
    const a = hex(20);
    return pick([a, getAddress(a), a.toUpperCase().replace('0X', '0x'), '0x' + '0'.repeat(40), '0x' + 'f'.repeat(40)]);
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

/** What the gateway answered before: ethers' decoder, then the JSON mapping (or ethers' error). */
function viaEthers(fragment: FunctionFragment, raw: string): { value?: unknown; error?: string } {
  try {
    return { value: decodeResult(fragment, new Interface([fragment]).decodeFunctionResult(fragment, raw)) };
  } catch (e) {
    return { error: (e as { code?: string }).code ?? String(e) };
  }
}

const word = () => randomBytes(32).toString('hex');
/** Words that matter to each type: zero, all ones, sign bits, small values, random garbage. */
const edgeWord = () =>
  pick([
    '0'.repeat(64),
    'f'.repeat(64),
    '8' + '0'.repeat(63),
    '0'.repeat(63) + '1',
    '0'.repeat(24) + randomBytes(20).toString('hex'),
    '0'.repeat(62) + '80',
    '0'.repeat(62) + 'ff',
    word(),
    word().toUpperCase(),
  ]);

describe('staticResult', () => {
  it('reads what ethers reads for every elementary static type, one output or several, named or not', () => {
    for (let round = 0; round < 400; round++) {
      const types = Array.from({ length: 1 + Math.floor(Math.random() * 4) }, () => pick(STATIC_TYPES));
      const named = Math.random() < 0.5;
      const outputs = types.map((t, i) => (named ? `${t} out${i}` : t)).join(',');
      const fragment = FunctionFragment.from(`function f(uint256) view returns (${outputs})`);
      const raw = `0x${types.map(edgeWord).join('')}`;
      const fast = staticResult(fragment)!(raw);
      const expected = viaEthers(fragment, raw);
      if (fast === undefined) {
        // Left to ethers: only where ethers refuses (an address with high bytes set).
        expect(expected.error).toBeDefined();
        expect(types).toContain('address');
      } else {
        expect(expected).toEqual({ value: fast });
      }
    }
  });

  it('leaves to ethers every answer it would refuse: not hex, not whole words, too short, empty', () => {
    const fragment = FunctionFragment.from('function f() view returns (uint256, address)');
    const decode = staticResult(fragment)!;
    for (const raw of [
      '0x',
      `0x${'0'.repeat(64)}`,
      `0x${'0'.repeat(127)}`,
      `0x${'0'.repeat(130)}`,
      `0x${'0'.repeat(64)}${'0'.repeat(63)}g`,
      `0x${'0'.repeat(64)}${'f'.repeat(64)}`,
    ]) {
      expect(decode(raw)).toBeUndefined();
      expect(viaEthers(fragment, raw).error).toBeDefined();
    }
  });

  it('reads past the outputs nothing, as ethers does', () => {
    const fragment = FunctionFragment.from('function f() view returns (uint256)');
    const raw = `0x${'0'.repeat(63)}7${word()}`;
    expect(staticResult(fragment)!(raw)).toBe('7');
    expect(viaEthers(fragment, raw)).toEqual({ value: '7' });
  });

  it('leaves every other function to ethers: no outputs, dynamic types, arrays and tuples', () => {
    for (const signature of [
      'function f()',
      'function f() view returns (string)',
      'function f() view returns (bytes)',
      'function f() view returns (uint256[])',
      'function f() view returns (uint256[2])',
      'function f() view returns ((uint256,bool))',
      'function f() view returns (uint256, string)',
    ]) {
      expect(staticResult(FunctionFragment.from(signature))).toBeNull();
    }
  });
});
