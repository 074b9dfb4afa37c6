import { Interface, ParamType } from 'ethers';
import { encodeArgs } from './abi-args';
import { checksummed, eventArgs, keyedByName, wordJson } from './abi-json';
import { decodeFunctionOutput, decodeParams } from './bounded-decoder';
import { staticResult } from './static-result';

const ADDR = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const UINT256_MAX = ((1n << 256n) - 1n).toString();
const INT256_MIN = (-(1n << 255n)).toString();

const iface = new Interface([
  'function none()',
  'function one() view returns (uint256)',
  'function named() view returns (uint256 balance, address owner, bool frozen)',
  'function unnamed() view returns (uint256, address balanceOwner)',
  'function structs() view returns (tuple(address to, uint256 amount, tuple(bytes32 tag, uint16[] hops)[] legs) order, tuple(int8, bytes) raw)',
  'function bytesOut() view returns (bytes, bytes4[2])',
  'function everything(uint256 a, int256 b, int8 c, address d, bool e, string f, bytes g, bytes32 h, uint16[] i, address[2] j, tuple(address to, uint256 amount, tuple(bytes32 tag, uint16[] hops)[] legs) k, bytes4[2][] l, tuple(uint8, string)[] m)',
]);

/**
 * Encodes `values` as the return data of `name` and decodes it the way the gateway does: word by word
 * when the outputs are all static, else with the bounded decoder; both must give the same JSON.
 */
async function roundTripResult(name: string, values: unknown[]): Promise<unknown> {
  const fragment = iface.getFunction(name)!;
  const data = iface.encodeFunctionResult(fragment, values);
  const decoded = await decodeFunctionOutput(fragment, data);
  const fast = staticResult(fragment)?.(data);
  if (fast !== undefined) expect(fast).toEqual(decoded);
  return decoded;
}

describe('results: the gateway face', () => {
  it('is null without outputs and the bare value with one output', async () => {
    expect(await roundTripResult('none', [])).toBeNull();
    expect(await roundTripResult('one', [UINT256_MAX])).toBe(UINT256_MAX);
  });

  it('keys several named outputs by name', async () => {
    expect(await roundTripResult('named', [10n, ADDR.toLowerCase(), true])).toEqual({
      balance: '10',
      owner: ADDR,
      frozen: true,
    });
  });

  it('answers an array when any output is unnamed', async () => {
    expect(await roundTripResult('unnamed', [1n, ADDR])).toEqual(['1', ADDR]);
  });

  it('turns tuples into objects (arrays when unnamed), recursively', async () => {
    const tag = '0x' + 'AB'.repeat(32);
    expect(
      await roundTripResult('structs', [{ to: ADDR, amount: 5n, legs: [{ tag, hops: [1, 2] }] }, [-3, '0xCAFE']]),
    ).toEqual({
      order: { to: ADDR, amount: '5', legs: [{ tag: tag.toLowerCase(), hops: ['1', '2'] }] },
      raw: ['-3', '0xcafe'],
    });
  });

  it('answers bytes as lowercase hex', async () => {
    expect(await roundTripResult('bytesOut', ['0xDEADBEEF', ['0x01020304', '0xFFFFFFFF']])).toEqual([
      '0xdeadbeef',
      ['0x01020304', '0xffffffff'],
    ]);
  });
});

describe('one word as JSON', () => {
  const word = (hex: string) => hex.padStart(64, '0');
  it('reads integers masked and sign-extended, addresses EIP-55, bools, and bytesN from the left', () => {
    expect(wordJson({ kind: 'int', bits: 256, signed: true }, 'f'.repeat(64))).toBe('-1');
    expect(wordJson({ kind: 'int', bits: 8, signed: false }, 'f'.repeat(64))).toBe('255');
    expect(wordJson({ kind: 'int', bits: 8, signed: true }, word('80'))).toBe('-128');
    expect(wordJson({ kind: 'address' }, word(ADDR.slice(2).toLowerCase()))).toBe(ADDR);
    expect(wordJson({ kind: 'address' }, '1'.repeat(64))).toBeUndefined();
    expect(wordJson({ kind: 'bool' }, word('0'))).toBe(false);
    expect(wordJson({ kind: 'bool' }, word('2'))).toBe(true);
    expect(wordJson({ kind: 'fixed', bytes: 2 }, 'ABCD'.padEnd(64, '0'))).toBe('0xabcd');
    expect(checksummed(ADDR.slice(2).toLowerCase())).toBe(ADDR);
  });

  it('keys values by name only when every name is present and distinct; events key the rest by position', () => {
    const [a, b, c] = ['uint256 a', 'uint256 b', 'uint256 a'].map((t) => ParamType.from(t));
    const unnamed = ParamType.from('uint256');
    expect(keyedByName([a!, b!], ['1', '2'])).toEqual({ a: '1', b: '2' });
    expect(keyedByName([a!, unnamed], ['1', '2'])).toEqual(['1', '2']);
    expect(keyedByName([a!, c!], ['1', '2'])).toEqual(['1', '2']);
    expect(eventArgs([a!, unnamed, b!, c!], ['1', '2', '3', '4'])).toEqual({ '0': '1', '1': '2', b: '3', '3': '4' });
  });
});

describe('round trip: encodeArgs → encodeFunctionData → decodeParams (the explorer’s decoded input)', () => {
  const fragment = iface.getFunction('everything')!;
  const tag = '0x' + '11'.repeat(32);
  const canonical = [
    UINT256_MAX,
    INT256_MIN,
    '-128',
    ADDR,
    true,
    'héllo, wörld ✓',
    '0xdeadbeef',
    '0x' + 'ab'.repeat(32),
    ['0', '65535'],
    [ADDR, '0x0000000000000000000000000000000000000000'],
    {
      to: ADDR,
      amount: '1000000000000000000',
      legs: [
        { tag, hops: ['1', '2', '3'] },
        { tag, hops: [] },
      ],
    },
    [
      ['0x01020304', '0xffffffff'],
      ['0x00000000', '0x0a0b0c0d'],
    ],
    [
      ['255', ''],
      ['0', 'x'],
    ],
  ];

  /** The JSON the gateway would show for arguments sent as `args`. */
  function roundTrip(args: unknown[]): unknown[] {
    const data = iface.encodeFunctionData(fragment, encodeArgs(fragment, args));
    return decodeParams(fragment.inputs, `0x${data.slice(10)}`);
  }

  it('gives back the canonical input unchanged', () => {
    expect(roundTrip(canonical)).toEqual(canonical);
  });

  it('normalizes hex integers, JSON numbers, lower-case addresses and upper-case hex to the canonical form', () => {
    const loose = [
      '0x' + 'f'.repeat(64),
      INT256_MIN,
      -128,
      ADDR.toLowerCase(),
      true,
      'héllo, wörld ✓',
      '0xDEADBEEF',
      '0x' + 'AB'.repeat(32),
      [0, '0xffff'],
      [ADDR.toUpperCase().replace('0X', '0x'), '0x0000000000000000000000000000000000000000'],
      [ADDR, '0xde0b6b3a7640000', [[tag, [1, '2', '0x3']], { tag, hops: [] }]],
      [
        ['0x01020304', '0xFFFFFFFF'],
        ['0x00000000', '0x0A0B0C0D'],
      ],
      [
        [255, ''],
        ['0x0', 'x'],
      ],
    ];
    expect(roundTrip(loose)).toEqual(canonical);
  });
});
