import { AppError } from '../../kernel/errors/app-error';

/** Largest ABI a compiled contract may have, in bytes of compact JSON (docs/api.md, "Contracts"). */
export const MAX_ABI_BYTES = 256 * 1024;
/** Deepest tuple nesting an ABI may have: a struct parameter is 1, a struct inside it 2, ... */
export const MAX_TUPLE_DEPTH = 8;

/** Why an ABI is refused: its size or its tuple depth, with the limit it broke. */
export type AbiExcess =
  { kind: 'bytes'; bytes: number; limit: number } | { kind: 'depth'; depth: number; limit: number };

/**
 * How deep tuples nest in an ABI (solc's JSON: entries with `inputs`/`outputs`, parameters with
 * `components`), counted up to `cap`: the walk never goes deeper, so a hostile nesting costs no
 * more than its first `cap` levels. Arrays of tuples count as their tuple.
 */
export function tupleDepth(abi: unknown, cap = MAX_TUPLE_DEPTH + 1): number {
  if (!Array.isArray(abi)) return 0;
  const stack: Array<[params: unknown, depth: number]> = [];
  for (const entry of abi) {
    if (entry === null || typeof entry !== 'object') continue;
    const { inputs, outputs } = entry as { inputs?: unknown; outputs?: unknown };
    stack.push([inputs, 0], [outputs, 0]);
  }
  let deepest = 0;
  while (stack.length > 0) {
    const [params, depth] = stack.pop()!;
    if (!Array.isArray(params)) continue;
    for (const p of params) {
      const components = p !== null && typeof p === 'object' ? (p as { components?: unknown }).components : undefined;
      if (!Array.isArray(components)) continue;
      deepest = Math.max(deepest, depth + 1);
      if (deepest >= cap) return cap;
      stack.push([components, depth + 1]);
    }
  }
  return deepest;
}

/** What is wrong with an ABI under the limits, or undefined when nothing is. */
export function abiExcess(abi: unknown): AbiExcess | undefined {
  const bytes = Buffer.byteLength(JSON.stringify(abi) ?? '');
  if (bytes > MAX_ABI_BYTES) return { kind: 'bytes', bytes, limit: MAX_ABI_BYTES };
  const depth = tupleDepth(abi);
  if (depth > MAX_TUPLE_DEPTH) return { kind: 'depth', depth, limit: MAX_TUPLE_DEPTH };
  return undefined;
}

/** 422 CONTRACT_TOO_COMPLEX for `excess` of the contract `name`: `details: {limit}` (docs/api.md, "Contracts"). */
export function tooComplex(name: string, excess: AbiExcess): AppError {
  const message =
    excess.kind === 'bytes'
      ? `The ABI of ${name} is ${excess.bytes} bytes of JSON; at most ${excess.limit} are allowed`
      : `The ABI of ${name} nests tuples more than ${excess.limit} deep`;
  return new AppError('CONTRACT_TOO_COMPLEX', message, { limit: excess.limit });
}

/** Throws 422 CONTRACT_TOO_COMPLEX when the ABI of the contract `name` is over a limit. */
export function assertAbiWithinLimits(name: string, abi: unknown): void {
  const excess = abiExcess(abi);
  if (excess) throw tooComplex(name, excess);
}
