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
  return checksum(v);
}

/** Checksummed spellings remembered, by lowercase address; the oldest is dropped past this many. */
const MAX_CHECKSUMS = 20_000;
const checksums = new Map<string, string>();

/**
 * An address as shown in answers: EIP-55 checksummed (whatever case it was stored in). An explorer
 * page checksums every address of its rows (a hundred transactions: some 300), and ethers' getAddress
 * costs a few microseconds even with its keccak remembered; the checksum of an address never changes.
 */
export function checksum(address: string): string {
  const lower = address.toLowerCase();
  let spelled = checksums.get(lower);
  if (spelled === undefined) {
    spelled = getAddress(lower);
    if (checksums.size >= MAX_CHECKSUMS) checksums.delete(checksums.keys().next().value!);
    checksums.set(lower, spelled);
  }
  return spelled;
}
export const checksumOrNull = (address: string | null | undefined): string | null =>
  address ? checksum(address) : null;
