import { createHash } from 'node:crypto';
import type http from 'node:http';
import { ApolloServer, HeaderMap, type ApolloServerOptions, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type express from 'express';
import { LRUCache } from 'lru-cache';
import {
  execute,
  getOperationAST,
  OperationTypeNode,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import type { RequestContext } from '../auth/request-context';
import type { PublicError } from '../kernel/errors/error-map';
import { readPlainBody } from '../rest/direct-route';
import { endTogether } from '../rest/answer-batch';
import { MAX_BODY_BYTES } from '../rest/rest-api';
import { compileDocument } from '../schema/compile';
import type { GraphQLPipeline } from '../schema/limits';
import type { ErrorFaces } from './error-faces';
import type { RequestContexts } from './request-contexts';
import { BODY_TOO_LARGE, bodyParserError, NOT_JSON, withJsonBody } from './with-body-limit';
import { requestIdOf } from './with-request-id';
import { dataAnswerInTurns } from '../kernel/json-text';
import { clientLimitKey } from '../kernel/client-address';

export interface GraphQLHttpOptions {
  schema: GraphQLSchema;
  pipeline: GraphQLPipeline;
  contexts: RequestContexts;
  errors: ErrorFaces;
  /** The client's address as TRUST_PROXY decides (the overlap worker's queue counts documents per client). */
  clientAddress: (req: http.IncomingMessage) => string;
  /** Stopped with Apollo: the HTTP server's connections and the WebSocket server. */
  drain: () => Promise<void>;
}

/**
 * GraphQL over HTTP answers 200 with errors in the body (docs/api.md, "Conventions"), as GraphQL
 * clients expect; but a mutation sent over GET keeps Apollo's 405 with `Allow: POST`, as the
 * GraphQL-over-HTTP specification requires (docs/api.md, "Three faces of one schema").
 */
const graphqlStatus200: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        const status = response.http.status;
        if (status && status >= 400 && status < 500 && status !== 405) {
          response.http.status = 200;
        }
      },
    };
  },
};

/** A JSON body Apollo reads as such: `application/json`, in UTF-8 (the only charset express.json takes). */
const PLAIN_JSON = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;
/**
 * An Accept Apollo surely answers with `application/json`: no header, or only plain entries (no
 * weights) among application/json, application/*, * / * and text/plain, one of the first three.
 * Anything else (graphql-response+json, multipart, weights) is Apollo's to negotiate.
 */
function plainAccept(accept: string | undefined): boolean {
  if (accept === undefined) return true;
  let json = false;
  for (const entry of accept.split(',')) {
    const type = /^\s*(application\/json|application\/\*|\*\/\*|text\/plain)\s*(;\s*charset=utf-8\s*)?$/i.exec(
      entry,
    )?.[1];
    if (!type) return false;
    if (type.toLowerCase() !== 'text/plain') json = true;
  }
  return json;
}
/**
 * What GraphQL over HTTP reads from a POST: a JSON body, a media type a cross-site form cannot send
 * without a preflight (docs/api.md, "Three faces of one schema"; SECURITY.md).
 */
const POST_MEDIA_TYPE: PublicError = {
  status: 415,
  code: 'UNSUPPORTED_MEDIA_TYPE',
  message: 'GraphQL over HTTP POST takes a JSON body: send Content-Type: application/json',
};

/**
 * The GraphQL request of a GET the fast path takes, read as Apollo reads its search parameters: to
 * exactly /graphql, without a content-type, asking for JSON (not the GraphiQL page), with `query`
 * and at most `operationName` and a JSON object of `variables` (each once), no `extensions`.
 * Undefined for any other GET: Apollo answers it, in its own words where it refuses it.
 */
function plainGet(req: http.IncomingMessage): Record<string, unknown> | undefined {
  const url = req.url ?? '';
  if (!url.startsWith('/graphql?') || req.headers['content-type'] !== undefined) return undefined;
  if (!plainAccept(req.headers.accept)) return undefined;
  const params = new URLSearchParams(url.slice('/graphql?'.length));
  if (params.has('extensions')) return undefined;
  const once = (name: string): string | undefined | false => {
    const values = params.getAll(name);
    return values.length > 1 ? false : values[0];
  };
  const query = once('query');
  const operationName = once('operationName');
  const variablesText = once('variables');
  if (typeof query !== 'string' || operationName === false || variablesText === false) return undefined;
  let variables: unknown;
  if (variablesText !== undefined) {
    try {
      variables = JSON.parse(variablesText);
    } catch {
      return undefined;
    }
    if (variables === null || typeof variables !== 'object' || Array.isArray(variables)) return undefined;
  }
  return { query, operationName, variables };
}

/**
 * Apollo's refusals of a request it never ran (a method or content-type it does not take) skip
 * the plugins that name the request in each error: named here, as every GraphQL error is
 * (docs/api.md, "GraphQL specifics"). Apollo's own JSON, so parsed back only for such an answer.
 */
function withRequestIds(text: string, requestId: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  const errors = (body as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return text;
  let named = false;
  for (const e of errors as Array<{ extensions?: Record<string, unknown> }>) {
    if (e === null || typeof e !== 'object' || e.extensions?.requestId !== undefined) continue;
    e.extensions = { ...e.extensions, requestId };
    named = true;
  }
  return named ? `${JSON.stringify(body)}\n` : text;
}

/** Introspection's root fields (not `__typename`): Apollo answers those. */
const INTROSPECTION = /\b__(schema|type)\b/;
/**
 * Longer documents stay on graphql-js: graphql-jit's compile grows with the document (about 8 µs
 * per character of a plain selection here; a 7 KB admitted document took 67 ms, near the 100 ms a
 * request may hold the event loop). Reads that repeat are short.
 */
const MAX_COMPILED_SOURCE = 2_048;

/** A document the pipeline admitted, with what it was admitted for. */
interface Admitted {
  document: DocumentNode;
  source: string;
  operationName: string | undefined;
  variables: Record<string, unknown> | undefined;
}

/**
 * Documents handed to Apollo that the pipeline has admitted, at most: Apollo finds each in its
 * document store and neither parses nor validates it again (its validation is graphql-js's
 * `specifiedRules`, which the pipeline has run, the overlap rule off the event loop when it is
 * heavy). A document that left the store meanwhile is parsed and validated by Apollo, as before.
 */
const MAX_APOLLO_DOCUMENTS = 1_000;

/** One admitted operation, run for a request's context and variables. */
type Runner = (
  context: RequestContext,
  variables: Record<string, unknown>,
) => ExecutionResult | Promise<ExecutionResult>;

export interface GraphQLHttp {
  /**
   * Express's handlers for /graphql (its JSON body, the admission pipeline, Apollo, and GraphQL's
   * error body for whatever they refuse): every request the fast path leaves.
   */
  handlers: Array<express.RequestHandler | express.ErrorRequestHandler>;
  /**
   * The fast path, before express: a plain JSON POST, or a plain GET of a query, to exactly /graphql. Returns false for
   * anything else, which then goes through express to the handlers above.
   */
  direct(req: http.IncomingMessage, res: http.ServerResponse): boolean;
  stop(): Promise<void>;
}

/**
 * GraphQL over HTTP: the admission pipeline (src/schema/limits.ts), then Apollo, or for a plain
 * query or mutation, its execution straight from Node's server (graphql-js the first time a
 * document comes, its graphql-jit compilation after).
 *
 * The fast path exists because Apollo's per-request layers (its HTTP handling, hashing, content
 * negotiation, plugin hooks) and express's cost about as much as the gateway read they carry
 * (BENCHMARKS.md, "GraphQL reads"). It takes only what it answers exactly as Apollo does: a plain
 * JSON POST to /graphql, with no `extensions`, asking for `application/json`, whose operation is
 * a query or mutation without introspection, and the same for a GET of a query (`plainGet`). Same pipeline (admission, context, error faces, the
 * one schema); anything else, a document graphql-jit cannot compile, and variables it refuses
 * (nothing has run then) are handed to Apollo with the body already read.
 */
export async function graphqlHttp(opts: GraphQLHttpOptions): Promise<GraphQLHttp> {
  const { pipeline, contexts, errors } = opts;
  // Keyed as Apollo keys its store: the SHA-256 (hex) of the source, after a prefix of its own.
  const apolloDocuments = new LRUCache<string, DocumentNode>({ max: MAX_APOLLO_DOCUMENTS });
  const sha256 = (source: string) => createHash('sha256').update(source).digest('hex');
  const documentStore: NonNullable<ApolloServerOptions<RequestContext>['documentStore']> = {
    get: async (key) => apolloDocuments.get(key.slice(-64)),
    // Only the pipeline's documents: one Apollo parsed itself is not kept.
    set: async () => undefined,
    delete: async (key) => apolloDocuments.delete(key.slice(-64)),
  };
  const apollo = new ApolloServer<RequestContext>({
    schema: opts.schema,
    introspection: true,
    includeStacktraceInErrorResponses: false,
    // main.ts owns SIGINT/SIGTERM and stops everything in order; Apollo must not race it.
    stopOnTerminationSignals: false,
    // Every document reaches Apollo through the pipeline (admission below): never an unchecked one.
    persistedQueries: false,
    documentStore,
    // Apollo's CSRF check would refuse a GET without a content-type or preflight header, which is
    // how urql and graphql-request send queries. Neither request it guards against can do harm
    // here: no credential is read from cookies, so a cross-site request carries none; a GET runs
    // queries only (Apollo answers a mutation 405); a POST is read only with a JSON body
    // (mediaType below), a type no cross-site form sends without a preflight.
    csrfPrevention: false,
    formatError: errors.apollo.formatError,
    plugins: [
      // Apollo's landing page loads Sandbox from Apollo's servers; docsPages serves GraphiQL instead.
      ApolloServerPluginLandingPageDisabled(),
      graphqlStatus200,
      errors.apollo.plugin,
      {
        async serverWillStart() {
          return { drainServer: opts.drain };
        },
      },
    ],
  });
  await apollo.start();

  /**
   * Runs the pipeline on a request's GraphQL input before Apollo parses anything, on both paths: the
   * admitted document; 'refused' once the refusal is answered (it never reaches Apollo); undefined
   * when there is no document to admit (Apollo answers: the GraphiQL page, or its own error).
   */
  async function admit(
    input: unknown,
    req: http.IncomingMessage,
    res: http.ServerResponse,
  ): Promise<Admitted | 'refused' | undefined> {
    if (input === null || typeof input !== 'object' || Array.isArray(input)) return undefined;
    const { query, operationName } = input as Record<string, unknown>;
    let variables = (input as Record<string, unknown>).variables;
    if (typeof query !== 'string') return undefined;
    if (typeof variables === 'string') {
      try {
        variables = JSON.parse(variables) as unknown;
      } catch {
        return undefined;
      }
    }
    const name = typeof operationName === 'string' ? operationName : undefined;
    const vars =
      variables !== null && typeof variables === 'object' ? (variables as Record<string, unknown>) : undefined;
    const admitted = await pipeline.admit(query, vars, name, clientLimitKey(opts.clientAddress(req)));
    if (!admitted.errors) return { document: admitted.document, source: query, operationName: name, variables: vars };
    const requestId = requestIdOf(res);
    errors.sendGraphQL(
      res,
      admitted.errors.map((e) => errors.graphql(e, requestId)),
      // Retry-After of a SERVICE_UNAVAILABLE (the overlap worker's queue full).
      errors.headersOf(admitted.errors[0]),
    );
    return 'refused';
  }

  /** A POST whose body is not JSON: 415 in GraphQL's shape (a POST without a body is Apollo's to word). */
  const mediaType: express.RequestHandler = (req, res, next) => {
    if (req.method === 'POST' && req.is('application/json') === false) {
      errors.sendGraphQLRefusal(res, POST_MEDIA_TYPE, requestIdOf(res));
      return;
    }
    next();
  };

  /** Whatever the body parser or Apollo's adapter threw, as GraphQL's error body (never the REST one). */
  const refusals: express.ErrorRequestHandler = (err: unknown, _req, res, _next) => {
    const requestId = requestIdOf(res);
    errors.sendGraphQLRefusal(res, bodyParserError(err) ?? errors.publicError(err, requestId), requestId);
  };

  const admission: express.RequestHandler = (req, res, next) => {
    admit(req.method === 'GET' ? req.query : req.body, req, res).then((admitted) => {
      if (admitted === 'refused') return;
      if (admitted) toApollo(admitted);
      next();
    }, next);
  };

  /** Gives Apollo the admitted document, so that it does not parse and validate it again. */
  const toApollo = ({ source, document }: Admitted) => apolloDocuments.set(sha256(source), document);

  /** Apollo's answer to a request whose body is read (what @as-integrations/express5 does, without its url.parse). */
  async function viaApollo(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: unknown,
    context?: RequestContext,
  ): Promise<void> {
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const answer = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: {
        method: (req.method ?? 'GET').toUpperCase(),
        headers,
        search: q === -1 ? '' : url.slice(q),
        body,
      },
      context: async () => context ?? contexts.forHttp(requestIdOf(res), req),
    });
    for (const [key, value] of answer.headers) res.setHeader(key, value);
    res.statusCode = answer.status ?? 200;
    if (answer.body.kind === 'complete') {
      const text = res.statusCode >= 400 ? withRequestIds(answer.body.string, requestIdOf(res)) : answer.body.string;
      res.setHeader('content-length', Buffer.byteLength(text));
      res.end(text);
      return;
    }
    for await (const chunk of answer.body.asyncIterator) res.write(chunk);
    res.end();
  }

  /**
   * How the fast path runs each admitted document (the pipeline keeps one document object per
   * operation name and source, so this lives as long as the pipeline keeps it): graphql-js (what
   * Apollo runs) the first time, its graphql-jit compilation from the second if it is short and
   * holds no string literal (compiling costs more than it saves for a document sent once; a string
   * literal could become code in graphql-jit's output); false when only Apollo may run it.
   */
  const runners = new WeakMap<DocumentNode, Runner | 'seen once' | false>();
  const runnerOf = ({ document, source, operationName }: Admitted): Runner | false => {
    const entry = runners.get(document);
    if (entry !== undefined && entry !== 'seen once') return entry;
    const interpreted: Runner = (contextValue, variableValues) =>
      execute({ schema: opts.schema, document, contextValue, variableValues, operationName });
    if (entry === undefined) {
      const operation = getOperationAST(document, operationName);
      const plain =
        operation != null && operation.operation !== OperationTypeNode.SUBSCRIPTION && !INTROSPECTION.test(source);
      runners.set(document, plain ? 'seen once' : false);
      return plain ? interpreted : false;
    }
    // A document holding a string literal is never compiled (src/schema/compile.ts says why).
    const jit =
      source.length <= MAX_COMPILED_SOURCE ? compileDocument(opts.schema, document, operationName) : undefined;
    const runner: Runner = jit
      ? (contextValue, variableValues) => jit.query(undefined, contextValue, variableValues)
      : interpreted;
    runners.set(document, runner);
    return runner;
  };

  const isQuery = ({ document, operationName }: Admitted): boolean =>
    getOperationAST(document, operationName)?.operation === OperationTypeNode.QUERY;

  /** A read JSON body: the fast path when it may take it, else Apollo (or the pipeline's refusal). */
  async function serve(req: http.IncomingMessage, res: http.ServerResponse, body: unknown): Promise<void> {
    const admitted = await admit(body, req, res);
    if (admitted === 'refused') return;
    // Object variables only (Apollo refuses a JSON string in a POST body, in its own words), no extensions.
    const { variables, extensions } = body as Record<string, unknown>;
    const plain =
      extensions === undefined &&
      (variables === undefined || variables === null || (typeof variables === 'object' && !Array.isArray(variables)));
    // Over GET, only a query runs here: Apollo answers anything else (405 for a mutation).
    const getQuery = req.method !== 'GET' || (admitted && isQuery(admitted));
    const run = admitted && plain && getQuery && runnerOf(admitted);
    if (!admitted || !run) {
      if (admitted) toApollo(admitted);
      return viaApollo(req, res, body);
    }
    const requestId = requestIdOf(res);
    const context = contexts.forHttp(requestId, req);
    const result = await run(context, admitted.variables ?? {});
    // No data at all: the variables were refused before anything ran. Apollo words that answer.
    if (result.errors && result.data === undefined) {
      toApollo(admitted);
      return viaApollo(req, res, body, context);
    }
    res.statusCode = 200;
    // What Apollo's cache-control plugin writes on every answer: no field of the schema declares a cache hint.
    res.setHeader('cache-control', 'no-store');
    res.setHeader('content-type', 'application/json; charset=utf-8');
    if (!result.errors && result.data) {
      // Field by field over turns, a field whose value has its JSON text already (a contract's
      // document) written as that text (kernel/json-text.ts): the bytes JSON.stringify would write.
      const answer = await dataAnswerInTurns(result.data);
      res.setHeader(
        'content-length',
        typeof answer === 'string' ? Buffer.byteLength(answer) : answer.reduce((n, part) => n + part.length, 0),
      );
      // Megabytes for every client waiting for one build: written over turns (answer-batch.ts).
      endTogether(res, answer);
      return;
    }
    // Apollo's shape: errors before data, and a final newline.
    const text = `${JSON.stringify({ errors: result.errors?.map((e) => errors.graphql(e, requestId)), data: result.data })}\n`;
    for (const e of result.errors ?? []) {
      for (const [k, v] of Object.entries(errors.headersOf(e) ?? {})) res.setHeader(k, v);
    }
    res.setHeader('content-length', Buffer.byteLength(text));
    endTogether(res, text);
  }

  const apolloHandler: express.RequestHandler = (req, res, next) => void viaApollo(req, res, req.body).catch(next);

  return {
    handlers: [mediaType, withJsonBody(), admission, apolloHandler, refusals],
    direct(req, res) {
      if (req.method === 'GET') {
        const body = plainGet(req);
        if (!body) return false;
        serve(req, res, body).catch((error: unknown) =>
          errors.sendGraphQLRefusal(res, errors.publicError(error, requestIdOf(res)), requestIdOf(res)),
        );
        return true;
      }
      if (req.method !== 'POST' || req.url !== '/graphql') return false;
      if (!PLAIN_JSON.test(req.headers['content-type'] ?? '')) return false;
      const encoding = req.headers['content-encoding'];
      if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
      if (!plainAccept(req.headers.accept)) return false;
      const refuse = (r: http.ServerResponse, e: PublicError) => errors.sendGraphQLRefusal(r, e, requestIdOf(r));
      readPlainBody(req, res, { maxBody: MAX_BODY_BYTES, tooLarge: BODY_TOO_LARGE, send: refuse }, (raw) => {
        // As express.json reads it: an empty body is {}, a byte-order mark is dropped.
        const text = raw?.toString('utf8').replace(/^\uFEFF/, '') ?? '';
        let body: unknown = {};
        try {
          if (text !== '') body = JSON.parse(text);
        } catch {
          refuse(res, NOT_JSON);
          return;
        }
        // express.json (strict) takes objects and arrays only.
        if (body === null || typeof body !== 'object') {
          refuse(res, NOT_JSON);
          return;
        }
        serve(req, res, body).catch((error: unknown) => refuse(res, errors.publicError(error, requestIdOf(res))));
      });
      return true;
    },
    stop: async () => {
      await apollo.stop();
      await pipeline.close();
    },
  };
}
