import { AppError } from './errors/app-error';

/** Page sizes of growing lists (docs/api.md, "Conventions"): default 25, at most 100. */
export const DEFAULT_PAGE = 25;
export const MAX_PAGE = 100;

export function pageLimit(limit: number | null | undefined, fallback = DEFAULT_PAGE): number {
  if (limit === null || limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    throw new AppError('VALIDATION_FAILED', `limit must be an integer from 1 to ${MAX_PAGE}`, { field: 'limit' });
  }
  return limit;
}

/** Position after which the next page starts (keyset pagination). */
export interface CursorPosition {
  at: string;
  id: string;
}

/** The one cursor codec: a position as base64url JSON, opaque to clients. */
export function encodeCursor(position: object): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/**
 * Reads a cursor back with `accept`, which returns the position only when the decoded value is
 * exactly what its list writes. Cursors are opaque to clients: a tampered one is a 400, never a 500.
 */
export function decodeCursorWith<T>(
  cursor: string | null | undefined,
  accept: (raw: Record<string, unknown>) => T | undefined,
): T | undefined {
  if (cursor === null || cursor === undefined || cursor === '') return undefined;
  let position: T | undefined;
  try {
    const raw: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (raw !== null && typeof raw === 'object' && !Array.isArray(raw))
      position = accept(raw as Record<string, unknown>);
  } catch {
    /* not JSON: refused below */
  }
  if (position === undefined) {
    throw new AppError('VALIDATION_FAILED', 'cursor is not valid; pass the nextCursor of a previous page', {
      field: 'cursor',
    });
  }
  return position;
}

/** A `{at, id}` position (creation time, then id): exactly what encodeCursor writes for it. */
export function decodeCursor(cursor: string | null | undefined): CursorPosition | undefined {
  return decodeCursorWith(cursor, (p) =>
    // toISOString and a UUID: Date.parse alone takes "1" or "Sat", which PostgreSQL then refuses.
    typeof p.at === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(p.at) &&
    !Number.isNaN(Date.parse(p.at)) &&
    new Date(p.at).toISOString() === p.at &&
    typeof p.id === 'string' &&
    isUuid(p.id)
      ? { at: p.at, id: p.id }
      : undefined,
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);
