import { Interface, ParamType } from 'ethers';
import { encodeArgs } from './abi-args';
import { decodeResult, toJsonValue } from './abi-result';

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

/** Encodes `values` as the return data of `name` and decodes it the way the gateway does. */
function roundTripResult(name: string, values: unknown[]): unknown {
  const fragment = iface.getFunction(name)!;
  const data = iface.encodeFunctionResult(fragment, values);
  return decodeResult(fragment, iface.decodeFunctionResult(fragment, data));
}

describe('decodeResult', () => {
  it('is null without outputs and the bare value with one output', () => {
    expect(roundTripResult('none', [])).toBeNull();
    expect(roundTripResult('one', [UINT256_MAX])).toBe(UINT256_MAX);
  });

  it('keys several named outputs by name', () => {
    expect(roundTripResult('named', [10n, ADDR.toLowerCase(), true])).toEqual({
      balance: '10',
      owner: ADDR,
      frozen: true,
    });
  });

  it('answers an array when any output is unnamed', () => {
    expect(roundTripResult('unnamed', [1n, ADDR])).toEqual(['1', ADDR]);
  });

  it('turns tuples into objects (arrays when unnamed), recursively', () => {
    const tag = '0x' + 'AB'.repeat(32);
    expect(
      roundTripResult('structs', [{ to: ADDR, amount: 5n, legs: [{ tag, hops: [1, 2] }] }, [-3, '0xCAFE']]),
    ).toEqual({
      order: { to: ADDR, amount: '5', legs: [{ tag: tag.toLowerCase(), hops: ['1', '2'] }] },
      raw: ['-3', '0xcafe'],
    });
  });

  it('answers bytes as lowercase hex', () => {
    expect(roundTripResult('bytesOut', ['0xDEADBEEF', ['0x01020304', '0xFFFFFFFF']])).toEqual([
      '0xdeadbeef',
      ['0x01020304', '0xffffffff'],
    ]);
  });
});

describe('toJsonValue', () => {
  it('formats plain values', () => {
    expect(toJsonValue(ParamType.from('int256'), -5n)).toBe('-5');
    expect(toJsonValue(ParamType.from('uint8'), 7)).toBe('7');
    expect(toJsonValue(ParamType.from('address'), ADDR.toLowerCase())).toBe(ADDR);
    expect(toJsonValue(ParamType.from('bytes2'), new Uint8Array([0xab, 0xcd]))).toBe('0xabcd');
    expect(toJsonValue(ParamType.from('bool'), false)).toBe(false);
    expect(toJsonValue(ParamType.from('string'), 'x')).toBe('x');
  });

  it('reads tuples given as objects keyed by name', () => {
    const p = ParamType.from('tuple(address to, uint256 amount) t');
    expect(toJsonValue(p, { to: ADDR.toLowerCase(), amount: 1n })).toEqual({ to: ADDR, amount: '1' });
  });
});

describe('round trip: encodeArgs → encodeFunctionData → decodeFunctionData → toJsonValue', () => {
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
    const decoded = iface.decodeFunctionData(fragment, data);
    return fragment.inputs.map((p, i) => toJsonValue(p, decoded[i]));
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
