/**
 * Comparing compiled code with the code on chain (docs/api.md, "Verification"): runtime code with
 * the immutables masked, creation code as the prefix of the creation transaction's input (the rest
 * is the constructor arguments), and the CBOR metadata told apart so that a difference there alone
 * is a `partial` match. Pure functions on lowercase hex without 0x.
 */

/** solc's evm.deployedBytecode.immutableReferences: byte ranges the constructor fills in. */
export type ImmutableReferences = Record<string, Array<{ start: number; length: number }>>;

export type MatchKind = 'full' | 'partial';

export type CodeComparison = { match: MatchKind } | { match: null; reason: string };

/**
 * solc's CBOR metadata trailers, as hex: `{ipfs: bytes34, solc: bytes3}` (0.6.2+ default),
 * `{bzzr1: bytes32, solc: bytes3}` (0.5.x/0.6.x), `{solc: bytes3}` (bytecodeHash none), each
 * followed by its two-byte length; `experimental: true` may sit between the hash and `solc`.
 */
const METADATA_TRAILERS = [
  /a264697066735822[0-9a-f]{68}64736f6c6343[0-9a-f]{6}0033/g,
  /a364697066735822[0-9a-f]{68}6c6578706572696d656e74616cf564736f6c6343[0-9a-f]{6}0041/g,
  /a265627a7a72315820[0-9a-f]{64}64736f6c6343[0-9a-f]{6}0032/g,
  /a164736f6c6343[0-9a-f]{6}000a/g,
];

/** `0x…` or bare hex, lowercase without 0x. */
export function bareHex(code: string): string {
  return code.toLowerCase().replace(/^0x/, '');
}

/** Hex character ranges of the metadata trailers in `hex` (even offsets only: bytes, not nibbles). */
export function metadataRanges(hex: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const pattern of METADATA_TRAILERS) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(hex); m; m = pattern.exec(hex)) {
      if (m.index % 2 === 0) ranges.push([m.index, m.index + m[0].length]);
      pattern.lastIndex = m.index + 2;
    }
  }
  return ranges;
}

/** `hex` with the given hex ranges zeroed (ranges past its end are cut to it). */
export function mask(hex: string, ranges: Array<[number, number]>): string {
  if (ranges.length === 0) return hex;
  const chars = hex.split('');
  for (const [from, to] of ranges) {
    for (let i = from; i < Math.min(to, chars.length); i++) chars[i] = '0';
  }
  return chars.join('');
}

/** The immutables' byte ranges as hex ranges. */
export function immutableRanges(refs: ImmutableReferences | undefined): Array<[number, number]> {
  return Object.values(refs ?? {}).flatMap((list) =>
    list.map((r): [number, number] => [r.start * 2, (r.start + r.length) * 2]),
  );
}

/** Byte offset of the first difference of two hex strings of which neither is a prefix of the other. */
function firstDifference(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return Math.floor(i / 2);
  return Math.floor(n / 2);
}

/**
 * Runtime code: `onChain` against the compiled `compiled`, immutables masked in both. Full when
 * equal; partial when equal once the compiled code's metadata trailers are masked too.
 */
export function compareRuntime(onChainCode: string, compiledCode: string, refs?: ImmutableReferences): CodeComparison {
  const onChain = bareHex(onChainCode);
  const compiled = bareHex(compiledCode);
  if (compiled.includes('__$')) {
    return { match: null, reason: 'the compiled code has unlinked library placeholders (libraries are not supported)' };
  }
  const immutables = immutableRanges(refs);
  const a = mask(onChain, immutables);
  const b = mask(compiled, immutables);
  if (a === b) return { match: 'full' };
  if (a.length !== b.length) {
    return {
      match: null,
      reason: `the compiled runtime code is ${b.length / 2} bytes long, the code at the address ${a.length / 2} bytes`,
    };
  }
  const metadata = metadataRanges(compiled);
  const am = mask(a, metadata);
  const bm = mask(b, metadata);
  if (am === bm) return { match: 'partial' };
  return { match: null, reason: `the runtime code differs from the compiled code at byte ${firstDifference(am, bm)}` };
}

/**
 * Creation code: the creation transaction's input must start with the compiled creation code (its
 * metadata trailers aside for a partial match); what follows is the constructor arguments.
 */
export function compareCreation(
  creationInput: string,
  compiledCreation: string,
): { match: MatchKind; constructorArgs: string } | { match: null; reason: string } {
  const input = bareHex(creationInput);
  const compiled = bareHex(compiledCreation);
  if (input.length < compiled.length) {
    return {
      match: null,
      reason: `the creation transaction's input (${input.length / 2} bytes) is shorter than the compiled creation code (${compiled.length / 2} bytes)`,
    };
  }
  const prefix = input.slice(0, compiled.length);
  const constructorArgs = input.slice(compiled.length);
  if (prefix === compiled) return { match: 'full', constructorArgs };
  const metadata = metadataRanges(compiled);
  const a = mask(prefix, metadata);
  const b = mask(compiled, metadata);
  if (a === b) return { match: 'partial', constructorArgs };
  return { match: null, reason: `the creation code differs from the compiled code at byte ${firstDifference(a, b)}` };
}
