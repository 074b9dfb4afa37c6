import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Values that already have their JSON text (a contract's cached document: its bytes are exactly
 * `JSON.stringify(value)`): a face that writes such a value as a whole field may write the text
 * instead of serialising the value again, which for the largest allowed document holds the event
 * loop for tens of milliseconds (docs/api.md, "Hostile chain data": no request holds it 100 ms).
 * Any other face serialises the value as usual, with the same result.
 */
const texts = new WeakMap<object, Buffer>();

/** Registers `text` (exactly `JSON.stringify(value)`) as the JSON of `value`; answers `value`. */
export function withJsonText<T extends object>(value: T, text: Buffer): T {
  texts.set(value, text);
  return value;
}

/** The registered JSON text of `value`, if any. */
export function jsonTextOf(value: unknown): Buffer | undefined {
  return typeof value === 'object' && value !== null ? texts.get(value) : undefined;
}

/** CPU a GraphQL answer's encoding may use in one turn before it gives the event loop back. */
const ANSWER_TURN_BUDGET_MS = 10;
/**
 * Text encoded to bytes at a time: a field's JSON at least this long goes out as its own bytes, not
 * copied into the text around it; shorter ones are gathered up to this length.
 */
const PART_CHARS = 64 * 1024;

/**
 * `${JSON.stringify({ data })}\n`, the bytes of an answer without errors, encoded one top-level field
 * at a time, each field's registered text written as it is, and the event loop given back whenever a
 * turn has used `budgetMs`: a document may ask for a large value under a hundred aliases, megabytes
 * that one JSON.stringify would encode in one turn (docs/api.md, "Hostile chain data"). A small
 * answer comes back as one string; a large one as its parts.
 */
export async function dataAnswerInTurns(
  data: Record<string, unknown>,
  budgetMs = ANSWER_TURN_BUDGET_MS,
): Promise<string | Buffer[]> {
  let started = performance.now();
  const parts: Buffer[] = [];
  let text = '{"data":{';
  let first = true;
  for (const [name, value] of Object.entries(data)) {
    const json = jsonTextOf(value) ?? (JSON.stringify(value) as string | undefined);
    // As JSON.stringify leaves out a member whose value has no JSON (undefined).
    if (json === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(name)}:`;
    first = false;
    if (typeof json === 'string' && json.length < PART_CHARS) text += json;
    else {
      parts.push(Buffer.from(text), typeof json === 'string' ? Buffer.from(json) : json);
      text = '';
    }
    // Encoded to bytes a part at a time, not the whole answer in the last turn.
    if (text.length >= PART_CHARS) {
      parts.push(Buffer.from(text));
      text = '';
    }
    if (performance.now() - started >= budgetMs) {
      await nextTurn();
      started = performance.now();
    }
  }
  text += '}}\n';
  if (parts.length === 0) return text;
  parts.push(Buffer.from(text));
  return parts;
}
