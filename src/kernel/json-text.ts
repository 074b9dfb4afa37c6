/**
 * Values that already have their JSON text (a contract's cached document: its bytes are exactly
 * `JSON.stringify(value)`): a face that writes such a value alone may write the text instead of
 * serialising the value again, which for the largest allowed document holds the event loop for
 * tens of milliseconds (docs/api.md, "Hostile chain data": no request holds it 100 ms). Any other
 * face serialises the value as usual, with the same result.
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
