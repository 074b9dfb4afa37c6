import { AppError } from '../../kernel/errors/app-error';
import { findMethod, listMethods, methodKey } from './abi-method';

const abi = [
  { type: 'constructor', inputs: [{ name: 'supply', type: 'uint256' }], stateMutability: 'nonpayable' },
  {
    type: 'function',
    name: 'transfer',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
    stateMutability: 'nonpayable',
  },
  {
    type: 'function',
    name: 'transfer',
    inputs: [
      { name: 'to', type: 'address' },
      { name: 'amount', type: 'uint256' },
      { name: 'data', type: 'bytes' },
    ],
    outputs: [{ name: '', type: 'bool' }],
    stateMutability: 'nonpayable',
  },
  {
    type: 'function',
    name: 'balanceOf',
    inputs: [{ name: 'who', type: 'address' }],
    outputs: [{ name: '', type: 'uint256' }],
    stateMutability: 'view',
  },
  {
    type: 'function',
    name: 'route',
    inputs: [
      {
        name: 'order',
        type: 'tuple',
        components: [
          { name: 'to', type: 'address' },
          { name: 'hops', type: 'uint24[]' },
        ],
      },
    ],
    outputs: [],
    stateMutability: 'payable',
  },
  { type: 'function', name: 'version', inputs: [], outputs: [{ name: '', type: 'string' }], stateMutability: 'pure' },
  { type: 'event', name: 'Transfer', inputs: [{ name: 'from', type: 'address', indexed: true }], anonymous: false },
  { type: 'error', name: 'Nope', inputs: [] },
  { type: 'fallback', stateMutability: 'payable' },
  { type: 'receive', stateMutability: 'payable' },
];

/** The AppError thrown by `fn`, failing the test when it throws something else or nothing. */
function appErrorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

describe('listMethods', () => {
  it('lists functions only, in ABI order, with signature, mutability and payability', () => {
    const methods = listMethods(abi);
    expect(methods.map((m) => m.signature)).toEqual([
      'transfer(address,uint256)',
      'transfer(address,uint256,bytes)',
      'balanceOf(address)',
      'route((address,uint24[]))',
      'version()',
    ]);
    expect(methods.map((m) => [m.name, m.readOnly, m.payable])).toEqual([
      ['transfer', false, false],
      ['transfer', false, false],
      ['balanceOf', true, false],
      ['route', false, true],
      ['version', true, false],
    ]);
  });

  it('ignores a repeated identical entry', () => {
    expect(listMethods([abi[3], abi[3]])).toHaveLength(1);
  });
});

describe('methodKey', () => {
  it('is the name when unique and the signature for overloads', () => {
    const methods = listMethods(abi);
    expect(methods.map((m) => methodKey(methods, m))).toEqual([
      'transfer(address,uint256)',
      'transfer(address,uint256,bytes)',
      'balanceOf',
      'route',
      'version',
    ]);
  });
});

describe('findMethod', () => {
  it('finds a unique name', () => {
    expect(findMethod(abi, 'balanceOf').signature).toBe('balanceOf(address)');
  });

  it('finds by full signature, overloaded or not, tolerating spaces, parameter names and type aliases', () => {
    expect(findMethod(abi, 'transfer(address to, uint amount)').signature).toBe('transfer(address,uint256)');
    expect(findMethod(abi, 'route(tuple(address to, uint24[] hops) order)').signature).toBe(
      'route((address,uint24[]))',
    );
    expect(findMethod(abi, 'transfer(address,uint256)').fragment.inputs).toHaveLength(2);
    expect(findMethod(abi, 'transfer(address, uint256, bytes)').fragment.inputs).toHaveLength(3);
    expect(findMethod(abi, 'balanceOf(address)').name).toBe('balanceOf');
    expect(findMethod(abi, 'route((address,uint24[]))').payable).toBe(true);
  });

  it('refuses an ambiguous name with AMBIGUOUS_METHOD listing the signatures', () => {
    const e = appErrorOf(() => findMethod(abi, 'transfer'));
    expect(e.code).toBe('AMBIGUOUS_METHOD');
    expect(e.details).toEqual({
      method: 'transfer',
      signatures: ['transfer(address,uint256)', 'transfer(address,uint256,bytes)'],
    });
  });

  it('answers METHOD_NOT_FOUND for unknown names, signatures and non-functions', () => {
    for (const m of [
      'mint',
      'transfer(address)',
      'transfer(address,uint256',
      'transfer(foo)',
      'Transfer',
      'Nope',
      'constructor',
      'fallback',
      'receive',
      '',
    ]) {
      expect(appErrorOf(() => findMethod(abi, m)).code).toBe('METHOD_NOT_FOUND');
    }
  });
});
