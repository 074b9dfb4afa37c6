import express from 'express';
import type { PublicError } from '../errors/error-map';
import { MAX_BODY } from '../rest/rest-api';

/**
 * The body limit of API.md §1 (1 MiB) and the answer to a larger body, on every path: GraphQL's
 * JSON parser here, REST's raw body parser and the direct routes (src/rest) with the same limit,
 * WebSocket messages by ws's maxPayload (graphql-ws.ts).
 */
export const BODY_TOO_LARGE: PublicError = {
  status: 413,
  code: 'PAYLOAD_TOO_LARGE',
  message: `The request body is larger than ${MAX_BODY}`,
};

/** Step (express): GraphQL over HTTP's JSON body, at most MAX_BODY. */
export const withJsonBody = (): express.RequestHandler => express.json({ limit: MAX_BODY });

/** A body that should be JSON and is not. */
export const NOT_JSON: PublicError = {
  status: 400,
  code: 'VALIDATION_FAILED',
  message: 'The request body is not valid JSON',
};

/** What a body parser's failure (body-parser's error types) answers, if it is one. */
export function bodyParserError(err: unknown): PublicError | undefined {
  const type = (err as { type?: string } | null)?.type;
  if (type === 'entity.too.large') return BODY_TOO_LARGE;
  if (type === 'entity.parse.failed') return NOT_JSON;
  return undefined;
}
