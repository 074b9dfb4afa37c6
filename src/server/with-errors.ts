import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type express from 'express';
import { errorBody, type PublicError } from '../kernel/errors/error-map';
import type { ErrorFaces } from './error-faces';
import { bodyParserError } from './with-body-limit';
import { requestIdOf } from './with-request-id';

/** The answer to a path parameter that is not valid percent-encoding, on every path. */
export const BAD_PATH: PublicError = {
  status: 400,
  code: 'VALIDATION_FAILED',
  message: 'The request path is not valid percent-encoding',
};

/** Step (express): what no route answered is a JSON 404. */
export function notFound(errors: ErrorFaces): express.RequestHandler {
  return (req, res) => {
    errors.http(res, { status: 404, code: 'NOT_FOUND', message: `No route ${req.method} ${req.path}` });
  };
}

/** Step (express): whatever a route threw becomes the HTTP JSON error of the error map. */
export function withErrors(errors: ErrorFaces): express.ErrorRequestHandler {
  // Express calls an error handler by its arity: the unused `next` must stay.
  return (err: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    // A URIError: express could not decode a path parameter (a stray or truncated %-escape).
    const e = bodyParserError(err) ?? (err instanceof URIError ? BAD_PATH : errors.publicError(err, requestIdOf(res)));
    errors.http(res, e);
  };
}

/**
 * Requests Node's HTTP parser refuses (a request line or headers over 16 KiB, malformed HTTP)
 * never reach a step; they still get the error body of docs/api.md, "Conventions", written on the socket.
 */
export function answerParserErrors(server: http.Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // Headers (or the whole request) not in within the server's timeouts: answered, then cut, since
    // a slow client would keep its half of the socket open (docs/api.md, "Operations").
    const timedOut = err.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (!socket.writable) {
      if (timedOut) socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const e: PublicError = {
      status: tooLarge ? 431 : timedOut ? 408 : 400,
      code: 'VALIDATION_FAILED',
      message: tooLarge
        ? 'The request line or headers are too large'
        : timedOut
          ? 'The request did not arrive in time'
          : 'Malformed HTTP request',
    };
    const body = JSON.stringify(errorBody(e));
    // What every answer carries (docs/api.md, "Conventions"): nosniff, and an id to quote when asking about it.
    socket.end(
      `HTTP/1.1 ${e.status} ${http.STATUS_CODES[e.status]}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Content-Type-Options: nosniff\r\nX-Request-Id: ${randomUUID()}\r\nConnection: close\r\n\r\n${body}`,
      () => {
        if (timedOut) socket.destroy();
      },
    );
  });
}
