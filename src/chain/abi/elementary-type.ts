import type { ParamType } from 'ethers';

/** An elementary static ABI type: one 32-byte word in the head of an encoding, no tail. */
export type ElementaryType =
  | { kind: 'address' }
  | { kind: 'bool' }
  | { kind: 'int'; signed: boolean; bits: number }
  | { kind: 'bytes'; size: number };

/**
 * `param` as an elementary static type (address, bool, intN/uintN with N a multiple of 8 from 8 to
 * 256, bytesN with N from 1 to 32), or null for anything else: dynamic types (string, bytes),
 * arrays, tuples, and sizes Solidity does not have.
 */
export function elementaryType(param: ParamType): ElementaryType | null {
  return param.isArray() || param.isTuple() ? null : elementaryTypeNamed(param.baseType);
}

/** The same, from a type's name in an ABI (`uint256`, `bytes32`, `address`…); null for any other name. */
export function elementaryTypeNamed(type: string): ElementaryType | null {
  if (type === 'address' || type === 'bool') return { kind: type };
  const integer = /^(u?)int([0-9]+)$/.exec(type);
  if (integer) {
    const bits = Number(integer[2]);
    return bits >= 8 && bits <= 256 && bits % 8 === 0 ? { kind: 'int', signed: integer[1] !== 'u', bits } : null;
  }
  const fixed = /^bytes([0-9]+)$/.exec(type);
  if (fixed) {
    const size = Number(fixed[1]);
    return size >= 1 && size <= 32 ? { kind: 'bytes', size } : null;
  }
  return null;
}
