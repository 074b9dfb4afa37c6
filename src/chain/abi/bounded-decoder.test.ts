import { leastLoopHoldCpuMs } from '../../../tests/kit/cpu-time';
import { AbiCoder, FunctionFragment, getAddress, Interface, ParamType } from 'ethers';
import { AppError } from '../../kernel/errors/app-error';
import { decodeResult } from '../../../tests/kit/ethers-abi-json';
import {
  AbiDataError,
  DecodeBudget,
  decodeFunctionOutput,
  decodeParams,
  decodeParamsAsync,
  elementsOf,
  MAX_DECODED_BYTES,
  MAX_DECODED_ELEMENTS,
  paramTypes,
  quoted,
} from './bounded-decoder';

const coder = AbiCoder.defaultAbiCoder();
const word = (n: number | bigint) => BigInt(n).toString(16).padStart(64, '0');

/**
 * The inflation bomb: `uint256[][]` whose `outer` offsets all point at one inner array of `inner`
 * words, so `outer × inner` values come out of about `(outer + inner) × 32` bytes.
 */
function bomb(outer: number, inner: number, value: bigint = 2n ** 255n + 12345n): string {
  const head = word(32) + word(outer);
  const offsets = word(outer * 32).repeat(outer); // relative to the first offset: just past them
  const array = word(inner) + word(value).repeat(inner);
  return `0x${head}${offsets}${array}`;
}

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('bounded decoder', () => {
  it('gives what ethers gives for every kind of type', async () => {
    const fragment = FunctionFragment.from(
      'function f() view returns (uint8 a, int16 b, address c, bool d, bytes3 e, bytes f, string g, uint256[] h, ' +
        'tuple(uint64 x, string y)[2] i, tuple(int256, bytes)[] j, string[][] k, int256 l)',
    );
    const values = [
      255,
      -300,
      '0x00000000000000000000000000000000000000ab',
      true,
      '0xa1b2c3',
      '0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021',
      'héllo ✓ 😀',
      [1n, 2n ** 256n - 1n],
      [
        { x: 7n, y: 'a' },
        { x: 8n, y: '' },
      ],
      [
        [-1n, '0x'],
        [2n ** 200n, '0xff'],
      ],
      [['x', 'yy'], [], ['z']],
      -(2n ** 255n),
    ];
    const raw = coder.encode(fragment.outputs, values);
    const expected = decodeResult(fragment, new Interface([fragment]).decodeFunctionResult(fragment, raw));
    expect(await decodeFunctionOutput(fragment, raw)).toEqual(expected);
  });

  it('reads integers masked to their size and sign-extended, as ethers does', async () => {
    const raw = `0x${'f'.repeat(64)}${'f'.repeat(64)}`;
    const fragment = FunctionFragment.from('function f() view returns (uint8, int8)');
    expect(await decodeFunctionOutput(fragment, raw)).toEqual(['255', '-1']);
    expect(await decodeFunctionOutput(fragment, raw)).toEqual(
      decodeResult(fragment, new Interface([fragment]).decodeFunctionResult(fragment, raw)),
    );
  });

  it('refuses what ethers refuses: out-of-bounds offsets, bad lengths, addresses with high bytes, bad UTF-8', async () => {
    expect(() => decodeParams(paramTypes('uint256[]'), `0x${word(32)}${word(5)}${word(1)}`)).toThrow(AbiDataError);
    expect(() => decodeParams(paramTypes('bytes'), `0x${word(1_000_000)}`)).toThrow(AbiDataError);
    expect(() => decodeParams(paramTypes('address'), `0x${'1'.repeat(64)}`)).toThrow(AbiDataError);
    expect(() => decodeParams(paramTypes('string'), `0x${word(32)}${word(1)}${'ff'.padEnd(64, '0')}`)).toThrow(
      AbiDataError,
    );
    expect(() => decodeParams(paramTypes('uint256'), '0x12')).toThrow(AbiDataError);
    const fragment = FunctionFragment.from('function f() view returns (uint256)');
    await expect(decodeFunctionOutput(fragment, `0x${word(1)}00`)).rejects.toThrow(AbiDataError);
  });

  it('decodes data of exactly 256 KiB and refuses one word more with 422 RESULT_TOO_LARGE {bytes, limit}', () => {
    const content = MAX_DECODED_BYTES - 64;
    const exact = `0x${word(32)}${word(content)}${'ab'.repeat(content)}`;
    expect((exact.length - 2) / 2).toBe(262_144);
    const [value] = decodeParams(paramTypes('bytes'), exact);
    expect((value as string).length).toBe(2 + 2 * content);

    const over = `0x${word(32)}${word(content + 32)}${'ab'.repeat(content + 32)}`;
    const e = refusal(() => decodeParams(paramTypes('bytes'), over));
    expect(e.code).toBe('RESULT_TOO_LARGE');
    expect(e.details).toEqual({ bytes: 262_176, limit: 262_144 });
  });

  it('counts shared offsets every time they are followed: the same bytes decode or are refused by what they expand to', () => {
    // What ethers gives (quadratic there: kept small).
    const small = bomb(30, 30, 5n);
    expect(decodeParams(paramTypes('uint256[][]'), small)).toEqual(
      coder
        .decode(['uint256[][]'], small)
        .toArray(true)
        .map((a: bigint[][]) => a.map((b) => b.map(String))),
    );
    // 300 offsets to one array of 300 words: 1 + 300 × (1 + 300) = 90,301 elements, under the budget.
    const within = bomb(300, 300, 5n);
    const [value] = decodeParams(paramTypes('uint256[][]'), within);
    expect((value as string[][]).length).toBe(300);
    expect((value as string[][])[299]!.length).toBe(300);

    // 400 × 300: 120,401 elements from 23 KB of data.
    const over = bomb(400, 300);
    expect((over.length - 2) / 2).toBeLessThan(25_000);
    const e = refusal(() => decodeParams(paramTypes('uint256[][]'), over));
    expect(e.code).toBe('RESULT_TOO_LARGE');
    expect(e.details).toMatchObject({ bytes: (over.length - 2) / 2, limit: MAX_DECODED_BYTES, elementLimit: 100_000 });
    expect((e.details as { elements: number }).elements).toBeGreaterThan(MAX_DECODED_ELEMENTS);
  });

  it('counts bytes and strings by their words, so one shared string cannot be repeated past the budget', () => {
    // string[] of 100 offsets to one 64 KiB string: 100 × 2,049 elements.
    const length = 64 * 1024;
    const data = `0x${word(32)}${word(100)}${word(100 * 32).repeat(100)}${word(length)}${'61'.repeat(length)}`;
    expect(refusal(() => decodeParams(paramTypes('string[]'), data)).code).toBe('RESULT_TOO_LARGE');
    const fine = `0x${word(32)}${word(40)}${word(40 * 32).repeat(40)}${word(length)}${'61'.repeat(length)}`;
    expect((decodeParams(paramTypes('string[]'), fine)[0] as string[]).length).toBe(40);
  });

  it('decodes 100,000 elements without holding the event loop 100 ms, however the offsets are shared', async () => {
    const cases: Array<[string, string]> = [
      // uint256 values of full width, one shared inner array.
      ['uint256[][]', bomb(316, 315)],
      // Distinct addresses (each checksummed once), 8,000 of them in place, counted 12 times.
      [
        'address[][]',
        `0x${word(32)}${word(12)}${word(12 * 32).repeat(12)}${word(8000)}${Array.from({ length: 8000 }, (_, i) =>
          word(BigInt(i) * 7919n * 2n ** 100n + BigInt(i)),
        ).join('')}`,
      ],
      // Distinct full-width integers in place: 8,000 of them in one array.
      [
        'int256[]',
        `0x${word(32)}${word(8000)}${Array.from({ length: 8000 }, (_, i) => word(2n ** 255n + BigInt(i) * 2n ** 200n)).join('')}`,
      ],
    ];
    for (const [type, data] of cases) {
      const params = [ParamType.from(type)];
      const expected = decodeParams(params, data); // also warms up
      const { result, maxHoldMs } = await leastLoopHoldCpuMs(() => decodeParamsAsync(params, data), 100, {
        resolutionMs: 5,
        settleMs: 20,
      });
      expect(result).toEqual(expected);
      // Printed for the record (docs/api.md cites the figures).
      process.stdout.write(
        `bounded decoder: ${type}, ${(data.length - 2) / 2} bytes: loop held ${maxHoldMs.toFixed(1)} ms\n`,
      );
      expect(maxHoldMs).toBeLessThan(100);
    }
  });

  it('checksums addresses as ethers does (EIP-55)', () => {
    for (let i = 0; i < 200; i++) {
      const lower = (BigInt(i) * 0x1234567890abcdef1234567n + 0xdeadbeefn).toString(16).padStart(40, '0');
      const [value] = decodeParams(paramTypes('address'), `0x${lower.padStart(64, '0')}`);
      expect(value).toBe(getAddress(`0x${lower}`));
    }
  });

  it('counts decoded values as the decoder does, and shares one budget between several', () => {
    const [value] = decodeParams(paramTypes('uint256[][]'), bomb(300, 300, 5n));
    // The outer array, 300 inner arrays of 300 values: 90,301, the shared inner array each time.
    expect(elementsOf(value)).toBe(90_301);
    expect(elementsOf({ a: '0x' + 'ab'.repeat(32), b: ['1', true] })).toBe(5);
    expect(elementsOf('0x' + 'ab'.repeat(1000))).toBe(1 + 32);
    const budget = new DecodeBudget();
    expect(budget.take(value)).toBe(true);
    expect(budget.take(value)).toBe(false);
    expect(budget.taken).toBe(90_301);
    expect(budget.take(Array.from({ length: 9_000 }, () => '1'))).toBe(true);
    expect(budget.taken).toBe(99_302);
  });

  it('cuts quoted reasons to 4 KiB of UTF-8, never inside a character', () => {
    expect(quoted('short')).toBe('short');
    const long = quoted('A'.repeat(1_000_000));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(4096);
    expect(long.endsWith('…')).toBe(true);
    const emoji = quoted('😀'.repeat(5000));
    expect(Buffer.byteLength(emoji)).toBeLessThanOrEqual(4096);
    expect(emoji).not.toMatch(/[\uD800-\uDBFF]…$/);
    expect(emoji).toMatch(/^(😀)+…$/u);
  });
});
