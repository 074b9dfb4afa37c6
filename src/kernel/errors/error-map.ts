import { GraphQLError } from 'graphql';
import { ArgumentValidationError } from 'type-graphql';
import { QueryRunnerAlreadyReleasedError } from 'typeorm';
import { AppError, type ErrorDetails } from './app-error';
import { httpStatusOf, type ErrorCode } from './error-codes';

/** What a caller sees of an error: the body of docs/api.md, "Conventions" plus status and headers. */
export interface PublicError {
  status: number;
  code: ErrorCode;
  message: string;
  details?: ErrorDetails;
  headers?: Record<string, string>;
}

export const errorBody = (e: PublicError) => ({
  error: { code: e.code, message: e.message, ...(e.details ? { details: e.details } : {}) },
});

const make = (
  code: ErrorCode,
  message: string,
  details?: ErrorDetails,
  headers?: Record<string, string>,
): PublicError => ({
  status: httpStatusOf(code),
  code,
  message,
  details,
  headers,
});

/** pg and socket codes of a connection that failed or went away (PostgreSQL's classes 08 and 57P). */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '08006',
  '08001',
  '08003',
]);
/** pg's and pg-pool's own words for a connection that is gone (they carry no code). */
const CONNECTION_GONE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Connection ended unexpectedly/i;

/**
 * Connection failures of PostgreSQL (pg) or of the network stack: the database is unavailable.
 * Also when the failure is the cause of the error thrown (a few levels deep).
 */
export function isDatabaseDown(e: unknown, depth = 0): boolean {
  if (!(e instanceof Error) || depth > 3) return false;
  const code = (e as { code?: string }).code;
  if (CONNECTION_CODES.has(code ?? '') || CONNECTION_GONE.test(e.message)) return true;
  // TypeORM releases a query runner itself when its connection fails (the pg client's 'error'
  // event), so the next query of the transaction or lock holder using it (a COMMIT, say) finds it
  // released. The service releases its own runners only when done with them, so this means the
  // connection died.
  if (e instanceof QueryRunnerAlreadyReleasedError) return true;
  return isDatabaseDown((e as { cause?: unknown }).cause, depth + 1);
}

/** What INVALID_NETWORK says, on every face. */
export const INVALID_NETWORK_MESSAGE = 'network must be "testnet" or "mainnet"';

/** GraphQL's own input errors about the Network enum become INVALID_NETWORK, as on REST. */
const NETWORK_INPUT = /"Network"|enum "Network"|Network!?"? (enum|cannot)/;

/**
 * The one place that turns any thrown value into a public error. Unknown errors become a bare
 * INTERNAL and are handed to `onUnexpected` for logging; nothing else of them reaches the caller.
 */
export function toPublicError(err: unknown, onUnexpected: (e: unknown) => void): PublicError {
  // GraphQL wraps what resolvers throw (sometimes twice); the innermost error says what happened.
  let original: unknown = err;
  while (original instanceof GraphQLError && !(original instanceof ArgumentValidationError) && original.originalError) {
    original = original.originalError;
  }
  if (original instanceof AppError) return make(original.code, original.message, original.details, original.headers);
  if (original instanceof ArgumentValidationError) {
    const fields = original.extensions.validationErrors.map((v) => ({
      field: v.property,
      reasons: Object.values(v.constraints ?? {}),
    }));
    const first = fields[0]?.reasons[0];
    return make('VALIDATION_FAILED', first ? `Invalid input: ${first}` : 'Invalid input', { fields });
  }
  if (isDatabaseDown(original)) {
    return make('SERVICE_UNAVAILABLE', 'The database is unavailable; try again shortly', undefined, {
      'Retry-After': '5',
    });
  }
  if (original instanceof GraphQLError && err instanceof GraphQLError) {
    // Parse, validation and variable coercion errors of GraphQL itself: the caller's input.
    if (NETWORK_INPUT.test(err.message)) {
      return make('INVALID_NETWORK', INVALID_NETWORK_MESSAGE, { reason: err.message });
    }
    // A variable of the wrong type names its argument, as REST does for the same input.
    const variable = /^Variable "\$(\w+)"/.exec(err.message)?.[1];
    return make('VALIDATION_FAILED', err.message, variable ? { field: variable } : undefined);
  }
  onUnexpected(original);
  return make('INTERNAL', 'Internal server error');
}
