import type { ErrorCode } from './error-codes';

/** Structured extra information safe to show to the caller (never secrets). */
export type ErrorDetails = Record<string, unknown>;

/**
 * The one domain error type. Services throw it with a stable code; the GraphQL and REST layers
 * turn it into `extensions.code` and an HTTP status through ERROR_STATUS.
 */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetails,
    /** Extra response headers, e.g. Retry-After for 429s. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
