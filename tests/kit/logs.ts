import { createLogger, type Logger } from '../../src/kernel/logger';

/** A logger whose JSON lines are kept, parsed, for assertions. */
export function capturingLogger(level = 'debug'): {
  logger: Logger;
  lines: Array<Record<string, unknown>>;
  /** Every line kept so far, as one string (to look for a secret anywhere in them). */
  text: () => string;
} {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines, text: () => JSON.stringify(lines) };
}
