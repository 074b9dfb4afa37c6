import { AppError } from './errors/app-error';

/**
 * Control characters no text input may hold (docs/api.md, "Conventions"): NUL and the other C0
 * controls except tab, line feed and carriage return (Solidity sources and PEM need those), DEL
 * and the C1 controls. PostgreSQL cannot store NUL in text at all.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/**
 * Where in `value` a string (or an object key) holds a control character: a dotted path from the
 * value ('' for the value itself), or undefined when there is none. Walks strings, arrays and
 * objects (plain or type-graphql's input classes); anything else holds no text.
 */
export function controlCharacterPath(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return CONTROL_CHARACTER.test(value) ? path : undefined;
  if (value === null || typeof value !== 'object' || value instanceof Date) return undefined;
  const join = (key: string | number) => (path === '' ? String(key) : `${path}.${key}`);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = controlCharacterPath(value[i], join(i));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const [key, v] of Object.entries(value)) {
    if (CONTROL_CHARACTER.test(key)) return join(JSON.stringify(key));
    const found = controlCharacterPath(v, join(key));
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Throws 400 VALIDATION_FAILED when a field's arguments (by name) hold a control character,
 * naming where (`details.field`: the argument, then the path inside it) but not the value.
 */
export function refuseControlCharacters(args: Record<string, unknown>): void {
  const field = controlCharacterPath(args);
  if (field === undefined) return;
  throw new AppError(
    'VALIDATION_FAILED',
    `${field} must not contain control characters (U+0000 to U+001F but tab and line breaks, U+007F to U+009F)`,
    { field, reason: 'control character' },
  );
}
