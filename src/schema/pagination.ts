import { AppError } from '../errors/app-error';

/** Page sizes of growing lists (API.md §1): default 25, at most 100. */
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

export function encodeCursor(p: CursorPosition): string {
  return Buffer.from(JSON.stringify(p)).toString('base64url');
}

/** Cursors are opaque to clients; a tampered one is a 400, never a 500. */
export function decodeCursor(cursor: string | null | undefined): CursorPosition | undefined {
  if (cursor === null || cursor === undefined || cursor === '') return undefined;
  try {
    const p = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorPosition>;
    // Exactly what encodeCursor writes (toISOString, a UUID): Date.parse alone takes "1" or "Sat",
    // which PostgreSQL then refuses with an error.
    if (
      typeof p.at === 'string' &&
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(p.at) &&
      !Number.isNaN(Date.parse(p.at)) &&
      new Date(p.at).toISOString() === p.at &&
      isUuid(p.id)
    ) {
      return { at: p.at, id: p.id };
    }
  } catch {
    /* fall through */
  }
  throw new AppError('VALIDATION_FAILED', 'cursor is not valid; pass the nextCursor of a previous page', {
    field: 'cursor',
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);
