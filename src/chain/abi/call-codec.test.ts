import { AbiCoder, Interface } from 'ethers';
import { AppError } from '../../kernel/errors/app-error';
import { findMethod } from './abi-method';
import { CallCodec } from './call-codec';

const ABI = [
  'function balanceOf(address owner) view returns (uint256)',
  'function pair(tuple(address to, uint256 amount) p) view returns (tuple(address to, uint256 amount) out)',
];
const iface = new Interface(ABI);
const abi = JSON.parse(iface.formatJson()) as unknown[];
const OWNER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

describe('CallCodec', () => {
  it('encodes exactly as ethers does, the first time and from memory', () => {
    const codec = new CallCodec();
    const method = findMethod(abi, 'balanceOf');
    const expected = iface.encodeFunctionData('balanceOf', [OWNER]);
    expect(codec.encode('c1', iface, method, [OWNER])).toBe(expected);
    expect(codec.encode('c1', iface, method, [OWNER])).toBe(expected);
    // Lower case is the same address and the same call data.
    expect(codec.encode('c1', iface, method, [OWNER.toLowerCase()])).toBe(expected);
  });

  it('keys tuples given by component name per contract, so a same-signature ABI with other names is not confused', () => {
    const codec = new CallCodec();
    const method = findMethod(abi, 'pair');
    const other = new Interface([
      'function pair(tuple(address from, uint256 value) p) view returns (tuple(address from, uint256 value) out)',
    ]);
    const otherMethod = findMethod(JSON.parse(other.formatJson()) as unknown[], 'pair');
    const args = [{ to: OWNER, amount: '5' }];
    expect(codec.encode('c1', iface, method, args)).toBe(iface.encodeFunctionData('pair', [[OWNER, 5n]]));
    // Contract c2 names the components differently: the same JSON does not fit it.
    expect(() => codec.encode('c2', other, otherMethod, args)).toThrow(AppError);
  });

  it('never remembers a failure: bad arguments are refused every time', () => {
    const codec = new CallCodec();
    const method = findMethod(abi, 'balanceOf');
    for (let i = 0; i < 2; i++) {
      expect(() => codec.encode('c1', iface, method, ['0x1234'])).toThrow(/Argument 0/);
    }
  });

  it('decodes results as the gateway answers them, frozen so a remembered one cannot be changed', async () => {
    const codec = new CallCodec();
    const method = findMethod(abi, 'pair');
    const raw = AbiCoder.defaultAbiCoder().encode(['tuple(address,uint256)'], [[OWNER.toLowerCase(), 7n]]);
    const first = (await codec.decode('c1', iface, method, raw)) as Record<string, unknown>;
    expect(first).toEqual({ to: OWNER, amount: '7' });
    expect(await codec.decode('c1', iface, method, raw)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      first.amount = '8';
    }).toThrow(TypeError);
  });

  it('decodes now only what needs no waiting: static outputs and remembered answers', async () => {
    const codec = new CallCodec();
    const balanceOf = findMethod(abi, 'balanceOf');
    const word = AbiCoder.defaultAbiCoder().encode(['uint256'], [42n]);
    expect(codec.decodeNow('c1', balanceOf, word)).toBe('42');
    // A tuple goes through the bounded decoder: not now, until decode has remembered it.
    const pair = findMethod(abi, 'pair');
    const raw = AbiCoder.defaultAbiCoder().encode(['tuple(address,uint256)'], [[OWNER.toLowerCase(), 7n]]);
    expect(codec.decodeNow('c1', pair, raw)).toBeUndefined();
    const decoded = await codec.decode('c1', iface, pair, raw);
    expect(codec.decodeNow('c1', pair, raw)).toBe(decoded);
    // What decode refuses (over 256 KiB, not whole words) is never answered now.
    expect(codec.decodeNow('c1', balanceOf, `0x${'00'.repeat(256 * 1024 + 32)}`)).toBeUndefined();
    expect(codec.decodeNow('c1', balanceOf, '0x1234')).toBeUndefined();
  });
});
