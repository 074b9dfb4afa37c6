import { ConstructorFragment, FunctionFragment } from 'ethers';
import { AppError } from '../../kernel/errors/app-error';
import { encodeArgs } from './abi-args';

const UINT256_MAX = (1n << 256n) - 1n;
const INT256_MIN = -(1n << 255n);
const INT256_MAX = (1n << 255n) - 1n;
const CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/** A function taking the given parameters (human-readable ABI types, e.g. `uint8 x`). */
const fn = (...params: string[]) => FunctionFragment.from(`function f(${params.join(', ')})`);

/** The value `encodeArgs` makes of one argument of type `type`. */
const one = (type: string, value: unknown) => encodeArgs(fn(`${type} x`), [value])[0];

/** The AppError thrown by `f`, failing the test when it throws something else or nothing. */
function appErrorOf(f: () => unknown): AppError {
  try {
    f();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

/** Details of the INVALID_ARGUMENT thrown for one argument of type `type`. */
function refusal(type: string, value: unknown) {
  const e = appErrorOf(() => one(type, value));
  expect(e.code).toBe('INVALID_ARGUMENT');
  return e.details as { index: number; name: string | null; type: string | null; reason: string };
}

describe('encodeArgs: argument list', () => {
  it('treats absent and null args as no arguments', () => {
    expect(encodeArgs(fn(), undefined)).toEqual([]);
    expect(encodeArgs(fn(), null)).toEqual([]);
    expect(encodeArgs(fn(), [])).toEqual([]);
  });

  it('refuses args that are not an array', () => {
    for (const args of [{}, 'x', 1, true]) {
      const e = appErrorOf(() => encodeArgs(fn('uint8 a'), args));
      expect(e.code).toBe('VALIDATION_FAILED');
      expect(e.details).toMatchObject({ field: 'args' });
    }
  });

  it('names the first missing argument', () => {
    const e = appErrorOf(() => encodeArgs(fn('address to', 'uint256 amount'), [CHECKSUMMED]));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.details).toEqual({
      index: 1,
      name: 'amount',
      type: 'uint256',
      reason: 'missing argument: expected 2 argument(s), got 1',
    });
  });

  it('names the first extra position', () => {
    const e = appErrorOf(() => encodeArgs(fn('uint8 a'), [1, 2, 3]));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.details).toEqual({
      index: 1,
      name: null,
      type: null,
      reason: 'unexpected extra argument: expected 1 argument(s), got 3',
    });
  });

  it('reports index, name, type and reason of a misfit', () => {
    const e = appErrorOf(() => encodeArgs(fn('address to', 'uint8 amount'), [CHECKSUMMED, '256']));
    expect(e.details).toEqual({
      index: 1,
      name: 'amount',
      type: 'uint8',
      reason: 'args[1]: 256 is out of range for uint8 (0 to 255)',
    });
    expect(e.message).toContain('amount');
  });

  it('reports a null name for an unnamed parameter', () => {
    const e = appErrorOf(() => encodeArgs(FunctionFragment.from('function f(bool)'), ['yes']));
    expect(e.details).toMatchObject({ index: 0, name: null, type: 'bool' });
  });

  it('works for constructors', () => {
    const ctor = ConstructorFragment.from('constructor(string name, uint256 supply)');
    expect(encodeArgs(ctor, ['Token', '1000'])).toEqual(['Token', 1000n]);
    expect(appErrorOf(() => encodeArgs(ctor, ['Token'])).details).toMatchObject({ index: 1, name: 'supply' });
  });
});

describe('encodeArgs: integers', () => {
  it('accepts decimal strings, 0x hex strings and safe JSON integers', () => {
    expect(one('uint256', '1000')).toBe(1000n);
    expect(one('uint256', '0x3e8')).toBe(1000n);
    expect(one('uint256', '0x3E8')).toBe(1000n);
    expect(one('uint256', 1000)).toBe(1000n);
    expect(one('uint256', 0)).toBe(0n);
    expect(one('uint256', '000')).toBe(0n);
    expect(one('uint64', Number.MAX_SAFE_INTEGER)).toBe(BigInt(Number.MAX_SAFE_INTEGER));
    expect(one('int64', -Number.MAX_SAFE_INTEGER)).toBe(-BigInt(Number.MAX_SAFE_INTEGER));
  });

  it('accepts uint256 max as decimal and as hex, and refuses max + 1', () => {
    expect(one('uint256', UINT256_MAX.toString())).toBe(UINT256_MAX);
    expect(one('uint256', '0x' + 'f'.repeat(64))).toBe(UINT256_MAX);
    expect(one('uint256', '0x' + 'F'.repeat(64))).toBe(UINT256_MAX);
    expect(refusal('uint256', (UINT256_MAX + 1n).toString()).reason).toMatch(/out of range for uint256/);
    expect(refusal('uint256', '0x1' + '0'.repeat(64)).reason).toMatch(/out of range/);
  });

  it('accepts int256 min and max and negatives, refuses one beyond', () => {
    expect(one('int256', INT256_MIN.toString())).toBe(INT256_MIN);
    expect(one('int256', INT256_MAX.toString())).toBe(INT256_MAX);
    expect(one('int256', '-1')).toBe(-1n);
    expect(one('int256', -42)).toBe(-42n);
    expect(one('int8', '-128')).toBe(-128n);
    expect(refusal('int256', (INT256_MIN - 1n).toString()).reason).toMatch(/out of range for int256/);
    expect(refusal('int256', (INT256_MAX + 1n).toString()).reason).toMatch(/out of range/);
    expect(refusal('int8', '128').reason).toMatch(/out of range for int8 \(-128 to 127\)/);
    // Hex is the plain value, not two's complement: 0xff does not mean -1 for int8.
    expect(refusal('int8', '0xff').reason).toMatch(/out of range/);
  });

  it('checks the range of the bit size', () => {
    expect(one('uint8', 255)).toBe(255n);
    expect(refusal('uint8', 256).reason).toMatch(/256 is out of range for uint8/);
    expect(refusal('uint8', '0x100').reason).toMatch(/out of range/);
    expect(refusal('uint24', 1 << 24).reason).toMatch(/out of range for uint24/);
  });

  it('refuses negatives into unsigned types', () => {
    expect(refusal('uint256', '-1').reason).toMatch(/-1 is out of range for uint256/);
    expect(refusal('uint256', -1).reason).toMatch(/out of range/);
  });

  it('refuses unsafe JSON numbers, telling to send a string', () => {
    for (const n of [2 ** 53, 1e21, 1.5, -0.5, NaN, Infinity]) {
      const reason = refusal('uint256', n).reason;
      expect(reason).toMatch(/not a safe integer/);
      expect(reason).toMatch(/decimal string/);
    }
  });

  it('refuses malformed strings and other JSON types', () => {
    for (const v of ['', ' 1', '1 ', '1e3', '1.0', '0x', '0X10', '-0x1', '0xg', '+1', 'abc', '1_000']) {
      expect(refusal('uint256', v).reason).toMatch(/expected uint256/);
    }
    for (const v of [null, true, {}, [1]]) expect(refusal('int256', v).reason).toMatch(/expected int256/);
    expect(refusal('uint256', '1'.repeat(101)).reason).toMatch(/too long/);
  });
});

describe('encodeArgs: address', () => {
  const lower = CHECKSUMMED.toLowerCase();
  const upper = '0x' + CHECKSUMMED.slice(2).toUpperCase();

  it('accepts lower, upper and checksummed case, returning the lower-case form (what the ABI encodes)', () => {
    expect(one('address', lower)).toBe(lower);
    expect(one('address', upper)).toBe(lower);
    expect(one('address', CHECKSUMMED)).toBe(lower);
  });

  it('refuses a bad mixed-case checksum', () => {
    const bad = CHECKSUMMED.slice(0, 4) + CHECKSUMMED[4].toLowerCase() + CHECKSUMMED.slice(5);
    expect(bad).not.toBe(CHECKSUMMED);
    expect(refusal('address', bad).reason).toMatch(/checksum/);
  });

  it('refuses wrong lengths, missing 0x, ENS names and non-strings', () => {
    for (const v of [
      lower.slice(0, 41),
      lower + '0',
      lower.slice(2),
      'vitalik.eth',
      'XE7338O073KYGTWWZN0F2WZ0R8PX5ZPPZS',
      1,
      null,
    ]) {
      expect(refusal('address', v).reason).toMatch(/expected an address/);
    }
  });
});

describe('encodeArgs: bool and string', () => {
  it('accepts JSON booleans only', () => {
    expect(one('bool', true)).toBe(true);
    expect(one('bool', false)).toBe(false);
    for (const v of ['true', 'false', 0, 1, null]) expect(refusal('bool', v).reason).toMatch(/expected a JSON boolean/);
  });

  it('accepts JSON strings only', () => {
    expect(one('string', '')).toBe('');
    expect(one('string', 'héllo ✓')).toBe('héllo ✓');
    for (const v of [1, true, null, ['a']]) expect(refusal('string', v).reason).toMatch(/expected a JSON string/);
  });
});

describe('encodeArgs: bytes', () => {
  it('accepts even-length hex for bytes, lower-casing it', () => {
    expect(one('bytes', '0x')).toBe('0x');
    expect(one('bytes', '0xDEADbeef')).toBe('0xdeadbeef');
    expect(refusal('bytes', '0xabc').reason).toMatch(/even number/);
    expect(refusal('bytes', 'deadbeef').reason).toMatch(/0x hex/);
    expect(refusal('bytes', [1, 2]).reason).toMatch(/0x hex/);
  });

  it('requires the exact length for bytesN', () => {
    const b32 = '0x' + 'ab'.repeat(32);
    expect(one('bytes32', b32)).toBe(b32);
    expect(one('bytes1', '0xff')).toBe('0xff');
    expect(refusal('bytes32', '0x' + 'ab'.repeat(31)).reason).toMatch(
      /exactly 32 bytes \(64 hex digits\) for bytes32, got 31/,
    );
    expect(refusal('bytes32', '0x' + 'ab'.repeat(33)).reason).toMatch(/got 33/);
    expect(refusal('bytes4', '0x').reason).toMatch(/exactly 4 bytes/);
  });
});

describe('encodeArgs: arrays', () => {
  it('accepts dynamic arrays of any length', () => {
    expect(one('uint8[]', [])).toEqual([]);
    expect(one('uint8[]', [1, '2', '0x3'])).toEqual([1n, 2n, 3n]);
  });

  it('checks the length of fixed arrays', () => {
    expect(one('address[2]', [CHECKSUMMED.toLowerCase(), CHECKSUMMED])).toEqual([
      CHECKSUMMED.toLowerCase(),
      CHECKSUMMED.toLowerCase(),
    ]);
    expect(refusal('address[2]', [CHECKSUMMED]).reason).toBe('args[0]: expected exactly 2 element(s), got 1');
  });

  it('handles nested arrays and locates the misfit', () => {
    expect(
      one('uint8[2][]', [
        [1, 2],
        ['3', '4'],
      ]),
    ).toEqual([
      [1n, 2n],
      [3n, 4n],
    ]);
    expect(
      refusal('uint8[2][]', [
        [1, 2],
        [3, 300],
      ]).reason,
    ).toBe('args[0][1][1]: 300 is out of range for uint8 (0 to 255)');
    expect(refusal('uint8[]', 'x').reason).toMatch(/expected a JSON array for uint8\[\]/);
  });
});

describe('encodeArgs: tuples', () => {
  const f = FunctionFragment.from(
    'function place(uint256 id, tuple(address to, uint256 amount, tuple(bytes32 tag, uint16[] hops)[] legs) order)',
  );
  const tag = '0x' + '11'.repeat(32);

  it('accepts objects keyed by component names and arrays by position, recursively', () => {
    const expected = [7n, [CHECKSUMMED.toLowerCase(), 5n, [[tag, [1n, 2n]]]]];
    expect(encodeArgs(f, ['7', { to: CHECKSUMMED, amount: 5, legs: [{ tag, hops: [1, 2] }] }])).toEqual(expected);
    expect(encodeArgs(f, [7, [CHECKSUMMED.toLowerCase(), '5', [[tag, ['1', '0x2']]]]])).toEqual(expected);
  });

  it('refuses missing and unknown fields', () => {
    const missing = appErrorOf(() => encodeArgs(f, [1, { to: CHECKSUMMED, legs: [] }]));
    expect(missing.details).toEqual({
      index: 1,
      name: 'order',
      type: '(address,uint256,(bytes32,uint16[])[])',
      reason: 'args[1].amount: missing field',
    });
    const unknown = appErrorOf(() => encodeArgs(f, [1, { to: CHECKSUMMED, amount: 1, legs: [], memo: 'x' }]));
    expect((unknown.details as { reason: string }).reason).toMatch(/^args\[1\]: unknown field\(s\) memo/);
  });

  it('carries the path inside the argument in the reason', () => {
    const e = appErrorOf(() =>
      encodeArgs(f, [
        1,
        {
          to: CHECKSUMMED,
          amount: 1,
          legs: [
            { tag, hops: [] },
            { tag, hops: [1, 2, 70000] },
          ],
        },
      ]),
    );
    expect(e.details).toMatchObject({ index: 1, name: 'order' });
    expect((e.details as { reason: string }).reason).toBe(
      'args[1].legs[1].hops[2]: 70000 is out of range for uint16 (0 to 65535)',
    );
  });

  it('refuses an array of the wrong length and non-objects', () => {
    expect(appErrorOf(() => encodeArgs(f, [1, [CHECKSUMMED, 1]])).details).toMatchObject({
      reason: 'args[1]: expected a tuple of 3 value(s), got an array of 2',
    });
    expect(appErrorOf(() => encodeArgs(f, [1, 'x'])).details).toMatchObject({
      reason: expect.stringMatching(/expected an object/),
    });
  });

  it('requires the array form for tuples with unnamed components', () => {
    const g = FunctionFragment.from({
      type: 'function',
      name: 'g',
      inputs: [{ name: 'p', type: 'tuple', components: [{ name: '', type: 'uint8' }] }],
      outputs: [],
      stateMutability: 'nonpayable',
    });
    expect(encodeArgs(g, [[1]])).toEqual([[1n]]);
    expect(appErrorOf(() => encodeArgs(g, [{ '': 1 }])).details).toMatchObject({
      reason: expect.stringMatching(/as an array/),
    });
  });
});
