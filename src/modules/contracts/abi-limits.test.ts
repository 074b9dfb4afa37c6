import { AppError } from '../../kernel/errors/app-error';
import { abiExcess, assertAbiWithinLimits, MAX_ABI_BYTES, MAX_TUPLE_DEPTH, tupleDepth } from './abi-limits';

/** A struct parameter `depth` tuples deep (solc's ABI JSON), a uint256 at the bottom. */
function nested(depth: number, name = 'p'): Record<string, unknown> {
  if (depth === 0) return { internalType: 'uint256', name, type: 'uint256' };
  return { components: [nested(depth - 1, 'inner')], internalType: `struct S.T${depth}`, name, type: 'tuple' };
}
const fn = (inputs: Array<Record<string, unknown>>, outputs: unknown[] = []) => ({
  inputs,
  name: 'f',
  outputs,
  stateMutability: 'view',
  type: 'function',
});

describe('ABI limits', () => {
  it('counts tuple nesting through inputs, outputs, events and arrays of tuples', () => {
    expect(tupleDepth([fn([{ internalType: 'uint256', name: 'x', type: 'uint256' }])])).toBe(0);
    expect(tupleDepth([fn([nested(3)])])).toBe(3);
    expect(tupleDepth([fn([], [nested(5)])])).toBe(5);
    expect(tupleDepth([{ type: 'event', name: 'E', inputs: [nested(4)], anonymous: false }])).toBe(4);
    const arrayOfTuples = { ...nested(2), type: 'tuple[]' };
    expect(tupleDepth([fn([arrayOfTuples])])).toBe(2);
    // The walk stops one level past the limit, however deep the nesting goes.
    expect(tupleDepth([fn([nested(500)])])).toBe(MAX_TUPLE_DEPTH + 1);
  });

  it('accepts tuples nested 8 deep and refuses 9 with CONTRACT_TOO_COMPLEX {limit: 8}', () => {
    expect(abiExcess([fn([nested(8)], [nested(8)])])).toBeUndefined();
    expect(() => assertAbiWithinLimits('Deep', [fn([nested(8)])])).not.toThrow();
    expect(abiExcess([fn([], [nested(9)])])).toEqual({ kind: 'depth', depth: 9, limit: 8 });
    let error: unknown;
    try {
      assertAbiWithinLimits('Deep', [fn([nested(9)])]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'CONTRACT_TOO_COMPLEX', details: { limit: 8 } });
    expect((error as Error).message).toBe('The ABI of Deep nests tuples more than 8 deep');
  });

  it('accepts 256 KiB of ABI JSON and refuses a byte more with CONTRACT_TOO_COMPLEX {limit: 262144}', () => {
    const entry = (name: string) => fn([{ internalType: 'uint256', name, type: 'uint256' }]);
    const abi: Array<ReturnType<typeof entry>> = [];
    let length = 2; // the brackets
    while (length < MAX_ABI_BYTES - 300) {
      const next = entry(`a${abi.length}`);
      length += JSON.stringify(next).length + (abi.length > 0 ? 1 : 0);
      abi.push(next);
    }
    // One more entry whose name pads the JSON to exactly the limit.
    abi.push(entry('x'.repeat(MAX_ABI_BYTES - length - 1 - JSON.stringify(entry('')).length)));
    expect(Buffer.byteLength(JSON.stringify(abi))).toBe(MAX_ABI_BYTES);
    expect(abiExcess(abi)).toBeUndefined();
    abi[abi.length - 1]!.inputs[0]!.name = `${String(abi[abi.length - 1]!.inputs[0]!.name)}y`;
    expect(abiExcess(abi)).toEqual({ kind: 'bytes', bytes: MAX_ABI_BYTES + 1, limit: MAX_ABI_BYTES });
    expect(() => assertAbiWithinLimits('Wide', abi)).toThrow(
      expect.objectContaining({ code: 'CONTRACT_TOO_COMPLEX', details: { limit: 262144 } }),
    );
  });
});
