import { getAddress, id, keccak256, toUtf8Bytes } from 'ethers';
import { installKeccakCache } from './keccak-cache';

describe('installKeccakCache', () => {
  const samples = [
    new Uint8Array(0),
    toUtf8Bytes('transfer(address,uint256)'),
    toUtf8Bytes('5aaeb6053f3e94c9b9a09f33669435e7ef1beaed'),
    new Uint8Array(128).fill(7),
    new Uint8Array(4096).fill(9),
  ];
  const before = samples.map((s) => keccak256(s));

  beforeAll(() => installKeccakCache());

  it('gives the same digests as before, short and long inputs, first time and remembered', () => {
    for (let round = 0; round < 2; round++) {
      expect(samples.map((s) => keccak256(s))).toEqual(before);
    }
    expect(id('transfer(address,uint256)').slice(0, 10)).toBe('0xa9059cbb');
    expect(getAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
  });
});
