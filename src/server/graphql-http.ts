import type http from 'node:http';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import type express from 'express';
import type { GraphQLSchema } from 'graphql';
import type { RequestContext } from '../auth/request-context';
import type { GraphQLPipeline } from '../schema/limits';
import type { ErrorFaces } from './error-faces';
import type { RequestContexts } from './request-context';
import { requestIdOf } from './with-request-id';

export interface GraphQLHttpOptions {
  server: http.Server;
  schema: GraphQLSchema;
  pipeline: GraphQLPipeline;
  contexts: RequestContexts;
  errors: ErrorFaces;
  /** Stopped with Apollo, after the HTTP server drains (the WebSocket server). */
  alsoDrain: () => Promise<void>;
}

/** GraphQL over HTTP answers 200 with errors in the body (API.md §1), as GraphQL clients expect. */
const graphqlStatus200: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        if (response.http.status && response.http.status >= 400 && response.http.status < 500) {
          response.http.status = 200;
        }
      },
    };
  },
};

/**
 * GraphQL over HTTP: the admission pipeline (src/schema/limits.ts), then Apollo. Returns the
 * express handlers for /graphql (after its JSON body is read) and what stops Apollo.
 */
export async function graphqlHttp(
  opts: GraphQLHttpOptions,
): Promise<{ handlers: express.RequestHandler[]; stop(): Promise<void> }> {
  const { pipeline, contexts, errors } = opts;
  const apollo = new ApolloServer<RequestContext>({
    schema: opts.schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // main.ts owns SIGINT/SIGTERM and stops everything in order; Apollo must not race it.
    stopOnTerminationSignals: false,
    // Every document reaches Apollo through the pipeline (admission below): never an unchecked one.
    persistedQueries: false,
    formatError: errors.apollo.formatError,
    plugins: [
      ApolloServerPluginDrainHttpServer({ httpServer: opts.server }),
      // Apollo's landing page loads Sandbox from Apollo's servers; docsPages serves GraphiQL instead.
      ApolloServerPluginLandingPageDisabled(),
      graphqlStatus200,
      errors.apollo.plugin,
      {
        async serverWillStart() {
          return { drainServer: opts.alsoDrain };
        },
      },
    ],
  });
  await apollo.start();

  /** Runs the pipeline before Apollo parses anything; a refused document never reaches Apollo. */
  const admission: express.RequestHandler = (req, res, next) => {
    const input: unknown = req.method === 'GET' ? req.query : req.body;
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return next();
    const { query, operationName } = input as Record<string, unknown>;
    let variables = (input as Record<string, unknown>).variables;
    // No document: Apollo answers (the GraphiQL page, or its own error for a missing query).
    if (typeof query !== 'string') return next();
    if (typeof variables === 'string') {
      try {
        variables = JSON.parse(variables) as unknown;
      } catch {
        return next();
      }
    }
    const requestId = requestIdOf(res);
    const admitted = pipeline.admit(
      query,
      variables !== null && typeof variables === 'object' ? (variables as Record<string, unknown>) : undefined,
      typeof operationName === 'string' ? operationName : undefined,
    );
    if (!admitted.errors) return next();
    errors.sendGraphQL(
      res,
      admitted.errors.map((e) => errors.graphql(e, requestId)),
    );
  };

  return {
    handlers: [
      admission,
      expressMiddleware(apollo, { context: async ({ req, res }) => contexts.forHttp(requestIdOf(res), req) }),
    ],
    stop: () => apollo.stop(),
  };
}
