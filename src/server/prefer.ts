/**
 * Whether a `Prefer` header (RFC 7240) asks `respond-async`: preferences are comma-separated, each
 * maybe with a value and `;` parameters; names are case-insensitive; repeated headers all count.
 */
export function prefersAsync(header: unknown): boolean {
  const values = Array.isArray(header) ? header : [header];
  return values.some(
    (v) =>
      typeof v === 'string' &&
      v.split(',').some((p) => p.split(';')[0]!.split('=')[0]!.trim().toLowerCase() === 'respond-async'),
  );
}
