import { detectTokenStandard, runtimeCodeMatches } from './contract-verification';

const fn = (name: string, inputs: string[], outputs: string[] = []) => ({
  type: 'function',
  name,
  stateMutability: 'nonpayable',
  inputs: inputs.map((type, i) => ({ name: `a${i}`, type })),
  outputs: outputs.map((type) => ({ name: '', type })),
});

const ERC20 = [
  fn('name', [], ['string']),
  fn('symbol', [], ['string']),
  fn('decimals', [], ['uint8']),
  fn('totalSupply', [], ['uint256']),
  fn('balanceOf', ['address'], ['uint256']),
  fn('transfer', ['address', 'uint256'], ['bool']),
  fn('transferFrom', ['address', 'address', 'uint256'], ['bool']),
  fn('approve', ['address', 'uint256'], ['bool']),
  fn('allowance', ['address', 'address'], ['uint256']),
  { type: 'event', name: 'Transfer', anonymous: false, inputs: [] },
];
const ERC721 = [
  fn('balanceOf', ['address'], ['uint256']),
  fn('ownerOf', ['uint256'], ['address']),
  fn('safeTransferFrom', ['address', 'address', 'uint256']),
  fn('safeTransferFrom', ['address', 'address', 'uint256', 'bytes']),
  fn('transferFrom', ['address', 'address', 'uint256']),
  fn('approve', ['address', 'uint256']),
  fn('setApprovalForAll', ['address', 'bool']),
  fn('getApproved', ['uint256'], ['address']),
  fn('isApprovedForAll', ['address', 'address'], ['bool']),
];
const ERC1155 = [
  fn('balanceOf', ['address', 'uint256'], ['uint256']),
  fn('balanceOfBatch', ['address[]', 'uint256[]'], ['uint256[]']),
  fn('safeTransferFrom', ['address', 'address', 'uint256', 'uint256', 'bytes']),
  fn('safeBatchTransferFrom', ['address', 'address', 'uint256[]', 'uint256[]', 'bytes']),
  fn('setApprovalForAll', ['address', 'bool']),
  fn('isApprovedForAll', ['address', 'address'], ['bool']),
];

describe('detectTokenStandard', () => {
  it('recognises ERC-20, ERC-721 and ERC-1155 ABIs', () => {
    expect(detectTokenStandard(ERC20)).toBe('ERC-20');
    expect(detectTokenStandard(ERC721)).toBe('ERC-721');
    expect(detectTokenStandard(ERC1155)).toBe('ERC-1155');
  });

  it('refuses partial and non-token ABIs, and garbage', () => {
    expect(detectTokenStandard(ERC20.filter((f) => f.name !== 'allowance'))).toBeNull();
    expect(detectTokenStandard([fn('set', ['uint256']), fn('get', [], ['uint256'])])).toBeNull();
    expect(detectTokenStandard('not an abi')).toBeNull();
    expect(detectTokenStandard(null)).toBeNull();
  });
});

describe('runtimeCodeMatches', () => {
  const compiled = '0x6080604052' + '00'.repeat(32) + 'a264697066735822';
  it('compares byte for byte, case-insensitively', () => {
    expect(runtimeCodeMatches(compiled.toUpperCase().replace('0X', '0x'), compiled)).toBe(true);
    expect(runtimeCodeMatches(compiled.replace('a264', 'a265'), compiled)).toBe(false);
    expect(runtimeCodeMatches('0x', compiled)).toBe(false);
    expect(runtimeCodeMatches(compiled + '00', compiled)).toBe(false);
  });

  it('ignores the bytes of immutable variables, and only those', () => {
    const onChain = '0x6080604052' + '00'.repeat(12) + 'ab'.repeat(20) + 'a264697066735822';
    const refs = { '7': [{ start: 5, length: 32 }] };
    expect(runtimeCodeMatches(onChain, compiled)).toBe(false);
    expect(runtimeCodeMatches(onChain, compiled, refs)).toBe(true);
    expect(runtimeCodeMatches(onChain.replace('6080', '6081'), compiled, refs)).toBe(false);
  });
});
