import { ParamType } from 'ethers';
import { elementaryType, elementaryTypeNamed } from './elementary-type';

describe('elementary ABI types', () => {
  it('reads the sizes Solidity has', () => {
    expect(elementaryTypeNamed('address')).toEqual({ kind: 'address' });
    expect(elementaryTypeNamed('bool')).toEqual({ kind: 'bool' });
    expect(elementaryTypeNamed('uint8')).toEqual({ kind: 'int', signed: false, bits: 8 });
    expect(elementaryTypeNamed('int256')).toEqual({ kind: 'int', signed: true, bits: 256 });
    expect(elementaryTypeNamed('bytes1')).toEqual({ kind: 'bytes', size: 1 });
    expect(elementaryTypeNamed('bytes32')).toEqual({ kind: 'bytes', size: 32 });
  });

  it('is null for dynamic types, other names and sizes Solidity does not have', () => {
    for (const name of [
      'string',
      'bytes',
      'uint',
      'int7',
      'uint264',
      'uint0',
      'bytes0',
      'bytes33',
      'function',
      'Uint8',
    ]) {
      expect(elementaryTypeNamed(name)).toBeNull();
    }
  });

  it('is null for arrays and tuples, whatever their elements', () => {
    expect(elementaryType(ParamType.from('uint256'))).toEqual({ kind: 'int', signed: false, bits: 256 });
    expect(elementaryType(ParamType.from('uint256[]'))).toBeNull();
    expect(elementaryType(ParamType.from('address[2]'))).toBeNull();
    expect(elementaryType(ParamType.from('tuple(uint256 a)'))).toBeNull();
  });
});
