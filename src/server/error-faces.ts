import type http from 'node:http';
import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { AppError } from '../kernel/errors/app-error';
import { toPublicError, type PublicError } from '../kernel/errors/error-map';
import type { Logger } from '../kernel/logger';
import type { RequestContext } from '../auth/request-context';
import { sendErrorResponse } from '../rest/rest-errors';
import type { Metrics } from './metrics';

/**
 * How an error becomes an answer, one adapter per face, every one fed by the one error map
 * (`toPublicError`, src/kernel/errors/error-map.ts). An error the map does not know is answered as a bare
 * INTERNAL, counted (`unexpected_errors_total`) and logged with the request id, on every face.
 *
 * - HTTP JSON (REST, the direct routes, the edge's refusals, the ops routes): `http`, the body of
 *   docs/api.md, "Conventions" with the error's status (`sendErrorResponse`, src/rest/rest-errors.ts, which the
 *   REST layer writes with too).
 * - GraphQL over HTTP: `graphql` and `sendGraphQL` for answers given before Apollo runs (the
 *   admission pipeline, the rate limit), `apollo` for Apollo's own: 200 with `errors[]`, each with
 *   `extensions.code` and the request id.
 * - GraphQL over WebSocket: `ws`, the same error as a GraphQLError for graphql-ws to send.
 */
export interface ErrorFaces {
  /** Counts and logs an error answered as 500 INTERNAL, with the request id when known. */
  reportUnexpected(err: unknown, requestId: string | undefined): void;
  /** Any thrown value as a public error (an unexpected one counted and logged). */
  publicError(error: unknown, requestId: string | undefined): PublicError;
  /** HTTP JSON: writes `e` as the answer. */
  http(res: http.ServerResponse, e: PublicError): void;
  /** GraphQL: one entry of `errors[]`, with the request id. */
  graphql(error: unknown, requestId: string): GraphQLFormattedError;
  /** The same, of an error already mapped. */
  graphqlOf(e: PublicError, requestId: string): GraphQLFormattedError;
  /** GraphQL over HTTP, before Apollo: 200 with `errors[]` (docs/api.md, "Conventions") and the error's headers. */
  sendGraphQL(res: http.ServerResponse, errors: GraphQLFormattedError[], headers?: Record<string, string>): void;
  /**
   * GraphQL over HTTP, a request refused before it is read as GraphQL (a body that is not JSON, too
   * large, of another media type): the error's status and headers, and the body is `errors[]`, as
   * GraphQL clients read it, never the REST body.
   */
  sendGraphQLRefusal(res: http.ServerResponse, e: PublicError, requestId: string): void;
  /** GraphQL over HTTP, through Apollo: its formatError and the plugin adding request ids. */
  apollo: {
    formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
    plugin: ApolloServerPlugin<RequestContext>;
  };
  /** GraphQL over WebSocket. */
  ws(error: unknown, requestId: string): GraphQLError;
  /** The response headers a resolver's error asks for (Retry-After of a 429), GraphQL's wrapping undone. */
  headersOf(error: unknown): Record<string, string> | undefined;
}

const headersOf = (error: unknown): Record<string, string> | undefined => {
  let original = error;
  while (original instanceof GraphQLError && original.originalError) original = original.originalError;
  return original instanceof AppError ? original.headers : undefined;
};

/** A public error as an entry of GraphQL's `errors[]`: the docs/api.md code in extensions.code. */
const asGraphQL = (e: PublicError, formatted: GraphQLFormattedError): GraphQLFormattedError => ({
  message: e.message,
  locations: formatted.locations,
  path: formatted.path,
  extensions: { code: e.code, ...(e.details ? { details: e.details } : {}) },
});

/** Every GraphQL error names the request it belongs to, as the logs do. */
const withRequestId = (e: GraphQLFormattedError, requestId: string): GraphQLFormattedError => ({
  ...e,
  extensions: { ...e.extensions, requestId },
});

const formattedOf = (error: unknown): GraphQLFormattedError =>
  error instanceof GraphQLError ? error.toJSON() : { message: '' };

/** GraphQL's error body (`{errors}`) with a status and the error's headers. */
function writeGraphQL(
  res: http.ServerResponse,
  status: number,
  errors: GraphQLFormattedError[],
  headers?: Record<string, string>,
): void {
  const text = JSON.stringify({ errors });
  if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function errorFaces(metrics: Metrics, logger: Logger): ErrorFaces {
  const reportUnexpected = (err: unknown, requestId: string | undefined): void => {
    metrics.unexpectedErrors.inc();
    logger.error({ err, requestId }, 'unexpected error');
  };
  const publicError = (error: unknown, requestId: string | undefined): PublicError =>
    toPublicError(error, (err) => reportUnexpected(err, requestId));
  const graphql = (error: unknown, requestId: string): GraphQLFormattedError =>
    withRequestId(asGraphQL(publicError(error, requestId), formattedOf(error)), requestId);

  // Apollo's formatError is not given the context: each error remembers its request.
  const requestOfError = new WeakMap<object, string>();
  const plugin: ApolloServerPlugin<RequestContext> = {
    async requestDidStart() {
      return {
        async didEncounterErrors({ errors, contextValue, response }) {
          for (const error of errors) {
            requestOfError.set(error, contextValue.requestId);
            for (const [k, v] of Object.entries(headersOf(error) ?? {})) response.http.headers.set(k, v);
          }
        },
        async willSendResponse({ response, contextValue }) {
          if (response.body.kind !== 'single' || !response.body.singleResult.errors) return;
          response.body.singleResult.errors = response.body.singleResult.errors.map((e) =>
            withRequestId(e, contextValue.requestId),
          );
        },
      };
    },
  };

  return {
    reportUnexpected,
    publicError,
    http: sendErrorResponse,
    graphql,
    graphqlOf: (e, requestId) => withRequestId(asGraphQL(e, { message: '' }), requestId),
    sendGraphQL(res, errors, headers) {
      writeGraphQL(res, 200, errors, headers);
    },
    sendGraphQLRefusal(res, e, requestId) {
      // A refusal that comes once the answer has begun (a body found too large while streaming) cannot be written.
      if (res.headersSent) {
        res.destroy();
        return;
      }
      writeGraphQL(res, e.status, [withRequestId(asGraphQL(e, { message: '' }), requestId)], e.headers);
    },
    apollo: {
      formatError: (formatted, error) => {
        const requestId = typeof error === 'object' && error ? requestOfError.get(error) : undefined;
        return asGraphQL(publicError(error, requestId), formatted);
      },
      plugin,
    },
    headersOf,
    ws(error, requestId) {
      const f = graphql(error, requestId);
      return new GraphQLError(f.message, { extensions: f.extensions });
    },
  };
}
