import pino from 'pino';

/** Field paths that may carry secrets; pino replaces them before anything is written. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  '*.privateKey',
  '*.password',
  '*.apiKey',
  '*.accessToken',
  '*.token',
  '*.secret',
];

/** Error fields that hold a query's values (TypeORM's `parameters`, PostgreSQL's `detail` and `where`). */
const VALUE_FIELDS = new Set(['parameters', 'detail', 'where', 'driverError']);

/**
 * pino's error serializer, less every field that may hold SQL parameters: those carry keys, hashes
 * and user input. The SQL text, the error code and the message stay, so the log still says what failed.
 */
export function serializeError(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error) && (typeof err !== 'object' || err === null)) return err;
  const plain = (err instanceof Error ? pino.stdSerializers.err(err) : err) as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(plain)) {
    if (k === 'driverError' && v && typeof v === 'object') {
      const d = v as { code?: unknown; message?: unknown };
      out.driverError = { code: d.code, message: d.message };
    } else if (!VALUE_FIELDS.has(k)) {
      out[k] = k === 'cause' && depth < 3 ? serializeError(v, depth + 1) : v;
    }
  }
  return out;
}

export type Logger = pino.Logger;

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT, censor: '[redacted]' },
      base: undefined,
      serializers: { err: serializeError, error: serializeError },
    },
    destination,
  );
}
