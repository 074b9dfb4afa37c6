/*
 * PEM armour (RFC 7468) and strict base64. A linear scanner rather than a regular expression:
 * a backtracking pattern over `-----BEGIN X-----` … `-----END X-----` is quadratic on a text
 * full of unterminated BEGIN lines, which an anonymous login body can be.
 */

/** One PEM block: its label (e.g. CERTIFICATE) and decoded body. */
export interface PemBlock {
  label: string;
  der: Buffer;
}

const BEGIN = '-----BEGIN ';
const DASHES = '-----';
/** Labels are short upper-case words; anything longer is not PEM. */
const MAX_LABEL_LENGTH = 64;
/** Distinct labels looked for; each costs at most one pass over the text. */
const MAX_DISTINCT_LABELS = 8;

/**
 * Strict base64 (or base64url) decoding: Buffer.from silently skips invalid characters,
 * which would turn garbage into "some bytes". Returns null on anything that is not base64.
 */
export function decodeBase64(input: string): Buffer | null {
  const compact = input.replace(/\s+/g, '');
  if (compact.length === 0 || compact.length % 4 === 1) return null;
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(compact)) return null;
  const bytes = Buffer.from(compact.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length > 0 ? bytes : null;
}

/**
 * Every PEM block of a text, in order; blocks whose body is not base64 are skipped. Linear in
 * the text's length: a label whose END line is missing is never searched for again.
 */
export function decodePemBlocks(text: string): PemBlock[] {
  const blocks: PemBlock[] = [];
  const unterminated = new Set<string>();
  let pos = 0;
  for (;;) {
    const begin = text.indexOf(BEGIN, pos);
    if (begin < 0) break;
    const labelStart = begin + BEGIN.length;
    const labelEnd = text.indexOf(DASHES, labelStart);
    if (labelEnd < 0) break;
    const label = text.slice(labelStart, labelEnd);
    pos = labelEnd + DASHES.length;
    if (label.length === 0 || label.length > MAX_LABEL_LENGTH || !/^[A-Z0-9 ]+$/.test(label)) continue;
    if (unterminated.has(label)) continue;
    const endLine = `-----END ${label}-----`;
    const end = text.indexOf(endLine, pos);
    if (end < 0) {
      unterminated.add(label);
      if (unterminated.size > MAX_DISTINCT_LABELS) break;
      continue;
    }
    const der = decodeBase64(bodyWithoutHeaders(text.slice(pos, end)));
    if (der) blocks.push({ label, der });
    pos = end + endLine.length;
  }
  return blocks;
}

/** RFC 1421 style headers ("Proc-Type: ...") may precede the body; they are not base64. */
function bodyWithoutHeaders(body: string): string {
  return body
    .split(/\r?\n/)
    .filter((line) => !line.includes(':'))
    .join('');
}

/** Whether a text looks like PEM armour rather than bare base64. */
export function isPem(text: string): boolean {
  return text.includes(BEGIN);
}
