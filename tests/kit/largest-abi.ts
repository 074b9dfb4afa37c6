import { MAX_ABI_BYTES } from '../../src/modules/contracts/abi-limits';

export { MAX_ABI_BYTES };

/** A view function, as solc writes it into an ABI. */
export const viewFunction = (name: string, inputs: unknown[] = [], outputs: unknown[] = []) => ({
  inputs,
  name,
  outputs,
  stateMutability: 'view',
  type: 'function',
});

/**
 * The ABI whose documents are the largest and slowest to build under the 256 KiB limit (measured:
 * functions without parameters give the most operations per byte, about 3,000, and a 5.5 MB OpenAPI
 * document whose build takes ~160 ms of CPU, JSON.stringify another 40 ms).
 */
export function largestAbi(): unknown[] {
  const abi: unknown[] = [];
  let length = 2;
  for (let i = 0; ; i++) {
    const entry = viewFunction(`f${i.toString(36)}`);
    const size = JSON.stringify(entry).length + 1;
    if (length + size > MAX_ABI_BYTES) return abi;
    length += size;
    abi.push(entry);
  }
}
