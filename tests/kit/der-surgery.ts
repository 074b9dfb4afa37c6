import * as asn1js from 'asn1js';

/*
 * Byte-level editing of DER structures, to build the malformed and forged inputs an attacker
 * would send. Parsing goes through asn1js; encoding is plain definite-length DER so that every
 * edit changes exactly the bytes the test means to change.
 */

/** Encodes a DER length. */
function encodeLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** One TLV with the given identifier octet and the concatenated contents. */
export function tlv(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), encodeLength(body.length), body]);
}

export const seq = (...contents: Buffer[]): Buffer => tlv(0x30, ...contents);
export const set = (...contents: Buffer[]): Buffer => tlv(0x31, ...contents);
export const octets = (data: Buffer): Buffer => tlv(0x04, data);
export const oid = (dotted: string): Buffer => Buffer.from(new asn1js.ObjectIdentifier({ value: dotted }).toBER());
export const integer = (value: number): Buffer => Buffer.from(new asn1js.Integer({ value }).toBER());

/** A DER SET OF: the elements sorted by their encodings, as X.690 requires. */
export const setOf = (...elements: Buffer[]): Buffer => set(...[...elements].sort(Buffer.compare));

/** The identifier octet of a TLV. */
export const tagOf = (der: Buffer): number => der[0]!;

/** The raw encodings of the children of a constructed TLV (the first TLV of `der`). */
export function children(der: Buffer): Buffer[] {
  const parsed = asn1js.fromBER(der);
  if (parsed.offset === -1) throw new Error(`not BER: ${parsed.result.error}`);
  const value = (parsed.result.valueBlock as { value?: unknown }).value;
  if (!Array.isArray(value)) throw new Error('not a constructed element');
  return (value as asn1js.AsnType[]).map((child) => Buffer.from(child.valueBeforeDecodeView));
}

/** The first TLV of `der` without anything that follows it. */
export function firstElement(der: Buffer): Buffer {
  const parsed = asn1js.fromBER(der);
  if (parsed.offset === -1) throw new Error(`not BER: ${parsed.result.error}`);
  return der.subarray(0, parsed.offset);
}

/** Re-encodes a constructed TLV with the same tag and new children. */
export const rebuild = (der: Buffer, kids: Buffer[]): Buffer => tlv(tagOf(der), ...kids);

/** Replaces the child at `path` (indexes into nested constructed TLVs). */
export function replaceAt(der: Buffer, path: readonly number[], edit: (old: Buffer) => Buffer): Buffer {
  if (path.length === 0) return edit(der);
  const kids = children(der);
  const [index, ...rest] = path;
  if (index === undefined || index >= kids.length) throw new Error(`no child ${index}`);
  kids[index] = replaceAt(kids[index]!, rest, edit);
  return rebuild(der, kids);
}

/** The same constructed TLV, re-encoded with BER indefinite length (0x80 … 00 00). */
export function indefinite(der: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tagOf(der), 0x80]), ...children(der), Buffer.from([0, 0])]);
}

/**
 * `depth` nested SEQUENCEs around an empty one, written outermost first without recursion so
 * the builder itself stays linear.
 */
export function nestedSequences(depth: number): Buffer {
  const lengths: number[] = [0];
  for (let i = 1; i < depth; i++) {
    const inner = lengths[i - 1]!;
    lengths.push(1 + encodeLength(inner).length + inner);
  }
  const headers: Buffer[] = [];
  for (let i = depth - 1; i >= 0; i--) headers.push(Buffer.from([0x30]), encodeLength(lengths[i]!));
  return Buffer.concat(headers);
}

/** CMS ContentInfo → SignedData paths, for a ContentInfo as `openssl cms -sign` writes it. */
export const CMS = {
  /** ContentInfo.content [0] → SignedData. */
  signedData: [1, 0] as const,
  /** The child indexes inside a SignerInfo (no unsigned attributes). */
  signerInfo: { version: 0, sid: 1, digestAlgorithm: 2, signedAttrs: 3, signatureAlgorithm: 4, signature: 5 },
  /** OIDs used when building forged CMS. */
  oid: {
    signedData: '1.2.840.113549.1.7.2',
    data: '1.2.840.113549.1.7.1',
    contentType: '1.2.840.113549.1.9.3',
    messageDigest: '1.2.840.113549.1.9.4',
    rsassaPss: '1.2.840.113549.1.1.10',
    mgf1: '1.2.840.113549.1.1.8',
    sha256: '2.16.840.1.101.3.4.2.1',
  },
} as const;

/** The SignedData of a ContentInfo. */
export const signedDataOf = (contentInfo: Buffer): Buffer => children(children(contentInfo)[1]!)[0]!;

/** The index of the signerInfos SET in a SignedData (its last child). */
export const signerInfosIndex = (signedData: Buffer): number => children(signedData).length - 1;

/** Wraps a SignedData into a ContentInfo. */
export const contentInfo = (signedData: Buffer): Buffer => seq(oid(CMS.oid.signedData), tlv(0xa0, signedData));
