/** The ABI bound of docs/api.md, "Contracts" (256 KiB). */
export const MAX_ABI_BYTES = 256 * 1024;

/** A view function without parameters, as solc writes it into an ABI. */
export const viewFunction = (name: string) => ({
  inputs: [],
  name,
  outputs: [],
  stateMutability: 'view',
  type: 'function',
});

/** The ABI whose documents are the largest under the limit: ~3,100 functions without parameters. */
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
