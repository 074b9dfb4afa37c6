import * as asn1js from 'asn1js';

/*
 * Strict DER on top of asn1js (the parser pkijs is built on). asn1js reads BER and remembers
 * where an encoding departed from DER (indefinite lengths, long-form lengths where the short
 * form fits, constructed strings); a login proof is refused on any of them, on bytes after the
 * outermost element, and, in the callers, when the typed pkijs object does not re-encode to
 * exactly the bytes it was read from (unknown or trailing elements anywhere).
 */

/** More elements than any certificate or login CMS has; bounds the work on crafted input. */
const MAX_ELEMENTS = 20_000;
/** Deeper than any certificate or login CMS nests. */
const MAX_DEPTH = 64;

/**
 * What asn1js notes when an encoding is BER but not DER (its other notes are about values).
 * Its "Needlessly long encoded length" note tests the wrong length octet and is left out: the
 * re-encoding comparison catches length octets that are longer than needed.
 */
const NON_DER_NOTES = new Set([
  'Unnecessary usage of long length form',
  'Boolean value encoded in more then 1 octet',
  'Non-zero length of value block for Null type',
  'Needlessly long format of SID encoding',
  'No EndOfContent block encoded',
]);

/** Thrown for input that is not strict DER; callers turn it into their own refusal. */
export class NotDerError extends Error {}

/** Parses one DER element that must span all of `bytes`; throws NotDerError otherwise. */
export function parseStrictDer(bytes: Uint8Array): asn1js.AsnType {
  let parsed: ReturnType<typeof asn1js.fromBER>;
  try {
    parsed = asn1js.fromBER(bytes);
  } catch {
    throw new NotDerError('not DER'); // e.g. too deeply nested for the parser's recursion
  }
  if (parsed.offset === -1 || parsed.result.error) throw new NotDerError('not DER');
  if (parsed.offset !== bytes.byteLength) throw new NotDerError('bytes after the DER element');
  assertDerEncodings(parsed.result);
  return parsed.result;
}

/** Throws unless `reencoded` has exactly the bytes of `original`. */
export function assertSameEncoding(original: Uint8Array, reencoded: ArrayBuffer): void {
  if (!Buffer.from(reencoded).equals(Buffer.from(original.buffer, original.byteOffset, original.byteLength))) {
    throw new NotDerError('does not re-encode to the same bytes');
  }
}

/** Walks the parsed tree (iteratively: crafted nesting must not exhaust the stack). */
function assertDerEncodings(root: asn1js.AsnType): void {
  const stack: Array<{ node: asn1js.BaseBlock; depth: number }> = [{ node: root as asn1js.BaseBlock, depth: 0 }];
  let count = 0;
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (++count > MAX_ELEMENTS || depth > MAX_DEPTH) throw new NotDerError('too many DER elements');
    if (node.lenBlock.isIndefiniteForm) throw new NotDerError('indefinite length');
    for (const note of [...node.idBlock.warnings, ...node.lenBlock.warnings, ...node.valueBlock.warnings]) {
      if (NON_DER_NOTES.has(note)) throw new NotDerError('non-DER encoding');
    }
    if (!node.idBlock.isConstructed) continue;
    // DER encodes strings primitively; constructed (segmented) strings are BER only.
    if (node instanceof asn1js.OctetString || node instanceof asn1js.BitString) {
      throw new NotDerError('constructed string');
    }
    const children = (node.valueBlock as { value?: unknown }).value;
    if (Array.isArray(children)) {
      for (const child of children) stack.push({ node: child as asn1js.BaseBlock, depth: depth + 1 });
    }
  }
}
