import { getAddress, Interface } from 'ethers';
import { decodeCall, functionName } from './decoded-call';

const ABI = [
  'function transfer(address to, uint256 amount) returns (bool)',
  'function setPair((address owner, uint64 id) pair, bytes32[] tags, bytes data)',
  'function ping()',
];
const iface = new Interface(ABI);

describe('decodeCall', () => {
  it('decodes arguments as JSON: decimal strings, checksummed addresses, hex bytes, named tuples', () => {
    const data = iface.encodeFunctionData('transfer', ['0x00000000000000000000000000000000000000aa', 10n ** 30n]);
    expect(decodeCall(JSON.parse(iface.formatJson()), data)).toEqual({
      name: 'transfer',
      signature: 'transfer(address,uint256)',
      args: [
        { name: 'to', type: 'address', value: '0x00000000000000000000000000000000000000AA' },
        { name: 'amount', type: 'uint256', value: '1000000000000000000000000000000' },
      ],
    });
    const tuple = iface.encodeFunctionData('setPair', [
      { owner: '0x00000000000000000000000000000000000000bb', id: 7 },
      [`0x${'11'.repeat(32)}`],
      '0xdead',
    ]);
    expect(decodeCall(JSON.parse(iface.formatJson()), tuple)?.args).toEqual([
      { name: 'pair', type: '(address,uint64)', value: { owner: getAddress(`0x${'00'.repeat(19)}bb`), id: '7' } },
      { name: 'tags', type: 'bytes32[]', value: [`0x${'11'.repeat(32)}`] },
      { name: 'data', type: 'bytes', value: '0xdead' },
    ]);
  });

  it('returns null for unknown selectors, short or undecodable input and bad ABIs', () => {
    const abi = JSON.parse(iface.formatJson());
    expect(decodeCall(abi, '0x12345678')).toBeNull();
    expect(decodeCall(abi, '0x')).toBeNull();
    expect(decodeCall(abi, iface.getFunction('transfer')!.selector + '00')).toBeNull();
    expect(decodeCall('nonsense', '0x12345678')).toBeNull();
  });

  it('names functions by selector', () => {
    const abi = JSON.parse(iface.formatJson());
    expect(functionName(abi, iface.getFunction('ping')!.selector)).toBe('ping');
    expect(functionName(abi, '0xdeadbeef')).toBeNull();
  });
});
