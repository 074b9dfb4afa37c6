import express from 'express';
import type { PublicError } from '../kernel/errors/error-map';
import { MAX_BODY } from '../rest/rest-api';

/**
 * The body limit of docs/api.md, "Conventions" (1 MiB) and the answer to a larger body, on every path: GraphQL's
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

/** The content codings the body parsers undo (body-parser: gzip, deflate, br; identity is none). */
const ACCEPTED_ENCODINGS = 'gzip, deflate, br, identity';

/**
 * What a body parser's failure answers, if it is one (body-parser's errors, http-errors with a
 * 4xx status): too large → 413; not JSON → 400; a content coding or charset it cannot undo → 415
 * naming what it can (RFC 9110 §15.5.16); a body it could not read otherwise (a corrupt gzip
 * stream, a length that does not match what was sent) → 400.
 */
export function bodyParserError(err: unknown): PublicError | undefined {
  const e = err as { type?: unknown; status?: unknown; expose?: unknown } | null;
  const type = typeof e?.type === 'string' ? e.type : undefined;
  if (type === 'entity.too.large') return BODY_TOO_LARGE;
  if (type === 'entity.parse.failed') return NOT_JSON;
  if (type === 'encoding.unsupported') {
    return {
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      message: `The request's Content-Encoding is not supported; send one of: ${ACCEPTED_ENCODINGS}`,
      headers: { 'Accept-Encoding': ACCEPTED_ENCODINGS },
    };
  }
  if (type === 'charset.unsupported') {
    return { status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'The request body must be JSON in UTF-8' };
  }
  // body-parser marks its own client errors `expose`; a decoding failure carries no type.
  if (e?.expose === true && e.status === 400) {
    return { status: 400, code: 'VALIDATION_FAILED', message: 'The request body could not be read as sent' };
  }
  return undefined;
}
