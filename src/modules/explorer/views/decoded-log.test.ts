import { Interface } from 'ethers';
import { decodeLog } from './decoded-log';

const A = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const B = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const erc20 = new Interface(['event Transfer(address indexed from, address indexed to, uint256 value)']);
const erc721 = new Interface(['event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)']);
const erc1155 = new Interface([
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
]);
const custom = new Interface([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Ping(uint8 n)',
]);

const logOf = (iface: Interface, name: string, values: unknown[]) => iface.encodeEventLog(name, values);

describe('decodeLog', () => {
  it('tells an ERC-20 Transfer from an ERC-721 one by the number of indexed topics', () => {
    const fungible = logOf(erc20, 'Transfer', [A, B, 10n]);
    const nft = logOf(erc721, 'Transfer', [A, B, 7n]);
    expect(fungible.topics[0]).toBe(nft.topics[0]);
    expect(decodeLog(null, fungible.topics, fungible.data)).toEqual({
      name: 'Transfer',
      signature: 'Transfer(address,address,uint256)',
      args: { from: A, to: B, value: '10' },
    });
    expect(decodeLog(null, nft.topics, nft.data)!.args).toEqual({ from: A, to: B, tokenId: '7' });
  });

  it('decodes ERC-1155 batches and approvals for all', () => {
    const batch = logOf(erc1155, 'TransferBatch', [A, A, B, [1n, 2n], [3n, 4n]]);
    expect(decodeLog(null, batch.topics, batch.data)!.args).toEqual({
      operator: A,
      from: A,
      to: B,
      ids: ['1', '2'],
      values: ['3', '4'],
    });
    const approval = logOf(erc1155, 'ApprovalForAll', [A, B, true]);
    expect(decodeLog(null, approval.topics, approval.data)).toMatchObject({
      name: 'ApprovalForAll',
      args: { approved: true },
    });
  });

  it('uses the portal contract’s ABI first, and the standards for what it does not declare', () => {
    const abi = JSON.parse(custom.formatJson()) as unknown[];
    const ping = logOf(custom, 'Ping', [3]);
    expect(decodeLog(abi, ping.topics, ping.data)).toEqual({
      name: 'Ping',
      signature: 'Ping(uint8)',
      args: { n: '3' },
    });
    const nft = logOf(erc721, 'Transfer', [A, B, 7n]);
    expect(decodeLog(abi, nft.topics, nft.data)!.args).toEqual({ from: A, to: B, tokenId: '7' });
  });

  it('is null for an unknown event or a log without topics', () => {
    const ping = logOf(custom, 'Ping', [3]);
    expect(decodeLog(null, ping.topics, ping.data)).toBeNull();
    expect(decodeLog(null, [], '0x')).toBeNull();
  });
});
