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

export type Logger = pino.Logger;

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' }, base: undefined }, destination);
}
