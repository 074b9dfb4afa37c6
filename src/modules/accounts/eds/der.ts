/*
 * A minimal DER reader, used only to recover the exact bytes of the CMS signed attributes:
 * the signature covers their original encoding, and @peculiar/asn1-schema does not keep raw
 * bytes for repeated (SET OF) fields.
 */

/** One tag-length-value element: offsets into the buffer it was read from. */
interface Tlv {
  tag: number;
  start: number;
  valueStart: number;
  end: number;
}

/** Reads the element at `pos`; throws on high tag numbers, indefinite or overlong lengths. */
function readTlv(buf: Buffer, pos: number, limit: number): Tlv {
  if (pos + 2 > limit) throw new Error('truncated DER');
  const tag = buf[pos];
  if ((tag & 0x1f) === 0x1f) throw new Error('unsupported DER tag');
  let length = buf[pos + 1];
  let valueStart = pos + 2;
  if (length & 0x80) {
    const octets = length & 0x7f;
    if (octets === 0 || octets > 4 || valueStart + octets > limit) throw new Error('unsupported DER length');
    length = 0;
    for (let i = 0; i < octets; i++) length = length * 256 + buf[valueStart + i];
    valueStart += octets;
  }
  const end = valueStart + length;
  if (end > limit) throw new Error('truncated DER');
  return { tag, start: pos, valueStart, end };
}

/** The elements inside a constructed element. */
function childrenOf(buf: Buffer, parent: Tlv): Tlv[] {
  const children: Tlv[] = [];
  for (let pos = parent.valueStart; pos < parent.end;) {
    const child = readTlv(buf, pos, parent.end);
    children.push(child);
    pos = child.end;
  }
  return children;
}

/**
 * Returns the raw `[0] IMPLICIT SignedAttributes` element of the first SignerInfo of a
 * ContentInfo(SignedData), or null when that SignerInfo has no signed attributes.
 * Throws when the structure is not as expected.
 */
export function firstSignerSignedAttributes(contentInfo: Buffer): Buffer | null {
  const root = readTlv(contentInfo, 0, contentInfo.length);
  const [, explicitContent] = childrenOf(contentInfo, root); // contentType, [0] EXPLICIT content
  const [signedData] = childrenOf(contentInfo, explicitContent);
  const signerInfos = childrenOf(contentInfo, signedData).at(-1); // signerInfos is the last field
  if (!signerInfos || signerInfos.tag !== 0x31) throw new Error('no signerInfos');
  const [signerInfo] = childrenOf(contentInfo, signerInfos);
  // version, sid, digestAlgorithm, then [0] signedAttrs when present
  const field = childrenOf(contentInfo, signerInfo)[3];
  if (!field) throw new Error('truncated SignerInfo');
  return field.tag === 0xa0 ? contentInfo.subarray(field.start, field.end) : null;
}
