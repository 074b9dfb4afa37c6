import { filterSchema, pruneSchema } from '@graphql-tools/utils';
import { successStatus } from '../kernel/success-status';
import express from 'express';
import { Request as PonyfillRequest } from '@whatwg-node/fetch';
import { Response as FetsResponse } from 'fets';
import {
  execute,
  getNamedType,
  GraphQLError,
  GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isObjectType,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type OperationDefinitionNode,
} from 'graphql';
import { useSofa } from 'sofa-api';
import { AppError } from '../kernel/errors/app-error';
import { errorBody, INVALID_NETWORK_MESSAGE, toPublicError, type PublicError } from '../kernel/errors/error-map';
import type { Logger } from '../kernel/logger';
import { assertCost, costDependsOnVariables } from '../schema/limits';
import type { RequestContext } from '../auth/request-context';
import { directOperation, type DirectEndpoint, type HotRead } from './direct-route';
import { endTogether } from './answer-batch';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi';
import { omitNulls } from './omit-nulls';
import { assertStrictBodyTypes, sendErrorResponse, toRestError } from './rest-errors';
import { AREA_BASE, GRAPHQL_ONLY_FIELDS, REST_ROUTES, routeStatus, toRouterPath, type RestArea } from './routes';

/** What the REST layer hands SOFA for each request: the app context and the parsed body. */
interface RestServerContext {
  appContext: RequestContext;
  body: Record<string, unknown>;
}

export interface RestApiOptions {
  schema: GraphQLSchema;
  makeContext: (req: express.Request) => RequestContext;
  logger: Logger;
  servers: string[];
  /** Counts and logs an error answered as 500 INTERNAL, with the request id when known. */
  onUnexpected: (err: unknown, requestId: string | undefined) => void;
  /** Sources of the `servedDocument` routes, by field: the document for the path parameters. */
  documents?: ServedDocuments;
  /** Hot reads of direct routes, by field (`Mutation.queryContract`). */
  hotReads?: HotReads;
}

/** Hot reads of direct routes, by root field. */
export type HotReads = Readonly<Record<string, HotRead>>;

/** A document kept built by the service: the bytes answered and their strong validator. */
export interface ServedDocument {
  body: Buffer;
  etag: string;
}

export type ServedDocuments = Record<string, (params: Record<string, string>) => Promise<ServedDocument>>;

export interface RestApi {
  router: express.Router;
  openApi: OpenApiDocument;
  /** The area's direct routes, for the HTTP server to serve before express. */
  direct: DirectEndpoint[];
}

/** How deep SOFA (and directOperation) select nested object fields. */
const DEPTH_LIMIT = 3;

/** Body size limit of docs/api.md, "Conventions". */
export const MAX_BODY = '1mb';
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The schema SOFA sees for one area: only the root fields that have a route there, its types in
 * the order the schema without its GraphQL-only fields reaches them from its roots (the order of
 * the OpenAPI document's components): a GraphQL-only twin of a route (readContract, reaching
 * GatewayQueryResult from Query before queryContract does from Mutation) leaves the documents as
 * they were.
 */
function areaSchema(schema: GraphQLSchema, area: RestArea): GraphQLSchema {
  const graphqlOnly = new Set(GRAPHQL_ONLY_FIELDS);
  const withoutGraphQLOnly = filterSchema({
    schema,
    rootFieldFilter: (operation, name) => !graphqlOnly.has(`${operation}.${name}`),
  });
  // Without `types`, GraphQLSchema orders its types as its roots reach them.
  const ordered = new GraphQLSchema({ ...withoutGraphQLOnly.toConfig(), types: undefined });
  const fields = new Set(REST_ROUTES.filter((r) => r.area === area).map((r) => r.field));
  return pruneSchema(
    filterSchema({
      schema: ordered,
      rootFieldFilter: (operation, name) => fields.has(`${operation}.${name}`),
    }),
  );
}

/** The variables of each route's fixed document, by document: read once, not on every request. */
const variableNames = new WeakMap<DocumentNode, string[]>();

function variableNamesOf(document: DocumentNode): string[] {
  let names = variableNames.get(document);
  if (!names) {
    const op = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    names = op?.variableDefinitions?.map((v) => v.variable.name.value) ?? [];
    variableNames.set(document, names);
  }
  return names;
}

/**
 * REST bodies are flat (`{name, description}`), while GraphQL mutations take them as one `input`
 * argument: when an operation has an `input` variable that the body does not name, the body
 * (less the operation's other arguments) becomes it.
 */
function withInputFromBody(args: ExecutionArgs, body: Record<string, unknown>): ExecutionArgs {
  const names = variableNamesOf(args.document);
  let prepared = args;
  if (names.includes('input') && args.variableValues?.input === undefined && !('input' in body)) {
    const input: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) if (!names.includes(k)) input[k] = v;
    prepared = { ...args, variableValues: { ...(args.variableValues ?? {}), input } };
  } else {
    // Without an input object, a body field that is not an argument would be dropped unseen: a
    // client asking for a cap or a timeout must learn it is not applied (docs/api.md, "Conventions").
    const unknown = Object.keys(body).filter((k) => !names.includes(k));
    if (unknown.length > 0) {
      throw new AppError('VALIDATION_FAILED', `Unknown field(s): ${unknown.join(', ')}`, {
        field: unknown[0],
        fields: unknown,
      });
    }
  }
  assertStrictBodyTypes(prepared, new Set(Object.keys(body)));
  return prepared;
}

/** Parses a JSON body; a malformed one or one that is not an object is the caller's error (400). */
function parseBody(raw: unknown): Record<string, unknown> {
  if (!Buffer.isBuffer(raw) || raw.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('VALIDATION_FAILED', 'The request body is not valid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new AppError('VALIDATION_FAILED', 'The request body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/**
 * Whether an `If-None-Match` header names `etag` (RFC 9110 §13.1.2): `*`, or a comma-separated list
 * of entity tags compared weakly (`W/"x"` matches `"x"`). Unlike express's `req.fresh`, a request's
 * `Cache-Control: no-cache` does not turn it off: that speaks to caches, and fetch() adds it to every
 * conditional request.
 */
export function noneMatchHolds(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  const wanted = opaque(etag);
  return header.split(',').some((tag) => opaque(tag.trim()) === wanted);
}

/** The REST API of one area (devportal or explorer): SOFA over the area's part of the schema. */
export function createRestApi(area: RestArea, opts: RestApiOptions): RestApi {
  const base = AREA_BASE[area];
  const routes = REST_ROUTES.filter((r) => r.area === area);
  const schema = areaSchema(opts.schema, area);
  const objectTypes = Object.values(schema.getTypeMap())
    .filter((t) => isObjectType(t) && !t.name.startsWith('__'))
    .map((t) => t.name);

  const publicError = (error: unknown, requestId?: string) =>
    toRestError(toPublicError(error, (err) => opts.onUnexpected(err, requestId)));
  // SOFA's error handler sees only the errors: each remembers the request it failed.
  const requestOf = new WeakMap<object, string>();
  // A route's document is fixed: once measured, it is measured again per call only when a variable
  // can change its cost (the address page's `scan`, live blocks' `limit`); graphql-js checks the
  // variables of the others as it executes, in the same words.
  const measured = new WeakSet<DocumentNode>();
  const tagged = (result: ExecutionResult, requestId: string): ExecutionResult => {
    for (const error of result.errors ?? []) requestOf.set(error, requestId);
    return result;
  };
  const sofa = useSofa({
    basePath: base,
    schema,
    // Every object type is returned whole, never cut down to its id as SOFA does for "models".
    ignore: objectTypes,
    depthLimit: DEPTH_LIMIT,
    // SOFA knows no JSON Schema for the JSON scalar: arguments would point at a missing
    // `#/components/schemas/JSON` and fields become `{type: object}`, both wrong for `args:
    // ["0x..", "1"]` or `result: "1000"`. It is any JSON value. A getter hands SOFA a fresh object
    // each time, since SOFA writes descriptions into the schema it gets.
    customScalars: {
      get JSON() {
        return {};
      },
    },
    routes: Object.fromEntries(
      routes.map((r) => [
        r.field,
        { method: r.method, path: toRouterPath(r.path), responseStatus: routeStatus(r), tags: [area] },
      ]),
    ),
    context: (serverContext) => serverContext as unknown as RestServerContext as unknown as Record<string, unknown>,
    execute: (args: ExecutionArgs) => {
      const ctx = args.contextValue as RestServerContext;
      let prepared: ExecutionArgs;
      try {
        prepared = withInputFromBody({ ...args, contextValue: ctx.appContext }, ctx.body);
        // The same cost limits as every GraphQL face (a REST document is fixed; its arguments are not).
        if (!measured.has(prepared.document)) {
          assertCost(prepared.schema, prepared.document, prepared.variableValues, prepared.operationName);
          if (!costDependsOnVariables(prepared.document)) measured.add(prepared.document);
        }
      } catch (error) {
        const requestId = ctx.appContext.requestId;
        if (error instanceof GraphQLError) return tagged({ errors: [error] }, requestId);
        // SOFA answers errors of the result through errorHandler; a thrown one would be a 500.
        return tagged(
          { errors: [new GraphQLError((error as Error).message, { originalError: error as Error })] },
          requestId,
        );
      }
      return Promise.resolve(execute(prepared)).then((result) => tagged(result, ctx.appContext.requestId));
    },
    errorHandler: (errors) => {
      const e = publicError(errors[0], requestOf.get(errors[0]));
      return new FetsResponse(JSON.stringify(errorBody(e)), {
        status: e.status,
        headers: { 'content-type': 'application/json; charset=utf-8', ...(e.headers ?? {}) },
      });
    },
  });

  const inputTypes = new Map<string, string>();
  const defaultedArgs = new Map<string, string[]>();
  const descriptions = new Map<string, string>();
  for (const r of routes) {
    const [op, name] = r.field.split('.') as [string, string];
    const root = op === 'Query' ? schema.getQueryType() : schema.getMutationType();
    const inputArg = root?.getFields()[name]?.args.find((a) => a.name === 'input');
    const named = inputArg && getNamedType(inputArg.type);
    if (named && isInputObjectType(named)) inputTypes.set(r.field, named.name);
    const description = root?.getFields()[name]?.description;
    if (description) descriptions.set(r.field, description);
    const args = root?.getFields()[name]?.args ?? [];
    defaultedArgs.set(
      r.field,
      args.filter((a) => a.defaultValue !== undefined).map((a) => a.name),
    );
  }
  const openApi = buildOpenApiDocument({
    area,
    generated: sofa.openAPIDocument as unknown as OpenApiDocument,
    routes,
    inputTypes,
    defaultedArgs,
    descriptions,
    outputTypes: new Set(objectTypes),
    servers: opts.servers,
  });

  // A route's full path as a pattern (any path parameter, an optional trailing slash).
  const routePattern = (r: (typeof routes)[number]) => new RegExp(`^${base}${r.path.replace(/\{\w+\}/g, '[^/]+')}/?$`);

  // SOFA reads numeric and enum query parameters itself: its errors name no parameter (or speak
  // GraphQL), a value out of Int's range reaches GraphQL's own wording, and an empty value counts
  // as none. Checked here first.
  const checkedQueryParams = routes
    .filter((r) => r.method === 'GET' && !r.direct)
    .map((r) => {
      const [op, name] = r.field.split('.') as [string, string];
      const root = op === 'Query' ? schema.getQueryType() : schema.getMutationType();
      const params = (root?.getFields()[name]?.args ?? [])
        .map((a) => [a.name, getNamedType(a.type)] as const)
        .filter(([, type]) => isEnumType(type) || ['Int', 'SafeInt', 'Float'].includes(type.name));
      return { pattern: routePattern(r), params };
    })
    .filter((r) => r.params.length > 0);
  const badQueryParam = (url: URL): PublicError | undefined => {
    const route = checkedQueryParams.find((r) => r.pattern.test(url.pathname));
    for (const [name, type] of route?.params ?? []) {
      const refuse = (message: string): PublicError =>
        type.name === 'Network'
          ? { status: 400, code: 'INVALID_NETWORK', message: INVALID_NETWORK_MESSAGE, details: { field: name } }
          : { status: 400, code: 'VALIDATION_FAILED', message, details: { field: name } };
      const values = url.searchParams.getAll(name);
      if (values.length === 0) continue;
      if (values.length > 1) return refuse(`${name} must be given once`);
      const value = values[0]!;
      // SOFA would take an empty value for no value, and the argument's default with it.
      if (isEnumType(type)) {
        if (value === '') return refuse(`${name} must not be empty`);
        continue;
      }
      const integer = /^-?\d+$/.test(value);
      const number = Number(value);
      const ok =
        type.name === 'Float'
          ? value.trim() !== '' && Number.isFinite(number)
          : integer && (type.name === 'Int' ? number >= -(2 ** 31) && number < 2 ** 31 : Number.isSafeInteger(number));
      if (!ok) {
        const kind =
          type.name === 'Float' ? 'a number' : integer ? 'an integer within the allowed range' : 'an integer';
        return refuse(`${name} must be ${kind}`);
      }
    }
    return undefined;
  };

  // Routes whose answers leave out null optional parts (routes.ts `omitWhenNull`), by method and path.
  const omitting = routes
    .filter((r) => r.omitWhenNull && !r.direct)
    .map((r) => ({ method: r.method, pattern: routePattern(r), paths: r.omitWhenNull! }));
  const omissionsFor = (method: string, path: string): string[] | undefined =>
    omitting.find((r) => r.method === method && r.pattern.test(path))?.paths;

  const router = express.Router();
  router.use(express.raw({ type: () => true, limit: MAX_BODY }));
  router.get('/openapi.json', (_req, res) => {
    res.json(openApi);
  });
  // Documents the service keeps built: their bytes as they are, `ETag`, and 304 on a matching
  // `If-None-Match` (docs/api.md, "Contracts").
  for (const route of routes.filter((r) => r.servedDocument && r.method === 'GET')) {
    const source = opts.documents?.[route.field];
    if (!source) continue;
    router.get(toRouterPath(route.path), (req, res, next) => {
      source(req.params as Record<string, string>)
        .then((doc) => {
          res.status(200);
          res.setHeader('etag', doc.etag);
          if (noneMatchHolds(req.headers['if-none-match'], doc.etag)) {
            res.status(304).end();
            return;
          }
          res.setHeader('content-type', 'application/json; charset=utf-8');
          res.setHeader('content-length', doc.body.length);
          // Every client waiting for one build is answered at once: their bytes go out over turns.
          if (req.method === 'HEAD') res.end();
          else endTogether(res, doc.body);
        })
        .catch(next);
    });
  }
  const direct: DirectEndpoint[] = [];
  for (const route of routes.filter((r) => r.direct)) {
    const run = directOperation({
      schema,
      route,
      ignore: objectTypes,
      depthLimit: DEPTH_LIMIT,
      parseBody,
      prepare: withInputFromBody,
      publicError,
      hot: opts.hotReads?.[route.field],
    });
    direct.push({ method: route.method, path: `${base}${route.path}`, run });
    // The same operation behind express, for the requests the HTTP server leaves to it.
    const handler: express.RequestHandler = (req, res, next) => {
      Promise.resolve()
        .then(() =>
          run({
            params: req.params as Record<string, string>,
            query: req.query,
            rawBody: req.body,
            context: () => opts.makeContext(req),
          }),
        )
        .then((reply) => {
          for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
          res.status(reply.status).json(reply.body);
        })
        .catch(next);
    };
    if (route.method === 'GET') router.get(toRouterPath(route.path), handler);
    else if (route.method === 'POST') router.post(toRouterPath(route.path), handler);
    else if (route.method === 'PATCH') router.patch(toRouterPath(route.path), handler);
    else router.delete(toRouterPath(route.path), handler);
  }
  router.use(async (req, res, next) => {
    try {
      const url = new URL(req.originalUrl, 'http://rest.local');
      // SOFA's own extras (webhook subscriptions at /webhook that POST to a caller-given URL, a docs
      // page) are not part of this API: refused before SOFA sees the request. `/webhooks/...` is ours.
      const sofaWebhook = url.pathname === `${base}/webhook` || url.pathname.startsWith(`${base}/webhook/`);
      if (sofaWebhook || url.pathname.startsWith(`${base}/docs`)) {
        sendErrorResponse(res, { status: 404, code: 'NOT_FOUND', message: `No route ${req.method} ${url.pathname}` });
        return;
      }
      const badParam = req.method === 'GET' ? badQueryParam(url) : undefined;
      if (badParam) {
        sendErrorResponse(res, badParam);
        return;
      }
      const appContext = opts.makeContext(req);
      const body = parseBody(req.body);
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD' && Buffer.isBuffer(req.body) && req.body.length > 0;
      // The router's own fetch implementation (@whatwg-node): Node's global Request reads bodies
      // through web streams, several times slower on this hot path.
      const request = new PonyfillRequest(url.toString(), {
        method: req.method,
        headers: { 'content-type': 'application/json' },
        body: hasBody ? (req.body as Buffer).toString('utf8') : undefined,
      });
      const serverContext: RestServerContext = { appContext, body };
      const response: Response | undefined = await sofa.fetch(request as Request, serverContext);
      const isJson = response?.headers.get('content-type')?.includes('json') ?? false;
      if (!response || !isJson) {
        // No SOFA route answered: a JSON 404.
        sendErrorResponse(res, {
          status: 404,
          code: 'NOT_FOUND',
          message: `No route ${req.method} ${url.pathname}`,
        });
        return;
      }
      res.status(response.status);
      response.headers.forEach((value, key) => {
        if (key !== 'content-length') res.setHeader(key, value);
      });
      if (response.ok && appContext.acceptedBody) {
        // Accepted for later (Prefer: respond-async): 202 with the record to follow, not the result.
        res.status(successStatus(req.method, true)).send(JSON.stringify(appContext.acceptedBody));
        return;
      }
      const omit = response.ok ? omissionsFor(req.method, url.pathname) : undefined;
      if (omit) {
        const answer: unknown = await response.json();
        omitNulls(answer, omit);
        res.send(JSON.stringify(answer));
        return;
      }
      res.send(Buffer.from(await response.arrayBuffer()));
    } catch (err) {
      next(err);
    }
  });
  return { router, openApi, direct };
}
