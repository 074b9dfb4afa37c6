import { getAddress } from 'ethers';
import { AppError } from './errors/app-error';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Whether `value` has the shape of an address (0x and 40 hexadecimal characters, any case). */
export const isAddressLike = (value: string): boolean => ADDRESS.test(value);

/**
 * A 20-byte address in any case (docs/api.md, "Conventions": "accepted in any case"), returned EIP-55 checksummed.
 * Letter case is not used as a checksum on input: lowercase, uppercase and mixed case all pass.
 */
export function parseAddress(value: unknown, field = 'address'): string {
  const v = typeof value === 'string' ? value.trim() : '';
  if (!ADDRESS.test(v)) {
    throw new AppError('VALIDATION_FAILED', `${field} must be 0x followed by 40 hexadecimal characters`, { field });
  }
  return getAddress(v.toLowerCase());
}

/** An address as shown in answers: EIP-55 checksummed (whatever case it was stored in). */
export const checksum = (address: string): string => getAddress(address.toLowerCase());
export const checksumOrNull = (address: string | null | undefined): string | null =>
  address ? checksum(address) : null;
