import { buildOperationNodeForField } from '@graphql-tools/utils';
import { successStatus } from '../kernel/success-status';
import type http from 'node:http';
import { parse as parseQueryString } from 'node:querystring';
import {
  execute,
  GraphQLBoolean,
  isEqualType,
  isInputObjectType,
  isLeafType,
  isListType,
  isObjectType,
  isNonNullType,
  isScalarType,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FieldNode,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { AppError } from '../kernel/errors/app-error';
import { controlCharacterPath } from '../kernel/text-input';
import { compileDocument } from '../schema/compile';
import { assertCost, costDependsOnArguments } from '../schema/limits';
import { errorBody, type PublicError } from '../kernel/errors/error-map';
import type { RequestContext } from '../auth/request-context';
import { endTogether } from './answer-batch';
import { omitNulls } from './omit-nulls';
import { sendErrorResponse } from './rest-errors';
import { routeStatus, type RestRoute } from './routes';

export interface DirectRouteOptions {
  /** The area's schema, as SOFA gets it. */
  schema: GraphQLSchema;
  route: RestRoute;
  /** SOFA's `ignore` list: object types returned whole. */
  ignore: string[];
  depthLimit: number;
  parseBody: (raw: unknown) => Record<string, unknown>;
  /** Applied to every execution, as for SOFA (the flat body → `input` rule). */
  prepare: (args: ExecutionArgs, body: Record<string, unknown>) => ExecutionArgs;
  /** Maps a failure to the error shape, as SOFA's error handler does (the same mapping). */
  publicError: (error: unknown, requestId?: string) => PublicError;
  /** The field's value when it is decided without waiting, asked before the operation runs. */
  hot?: HotRead;
}

/**
 * A route's field value when it is decided without waiting (what its resolver would return, its
 * checks, counting and analytics done), from the variables as the resolver gets them; undefined,
 * nothing done, when only the resolver can tell; or a promise of either (a rejection: the
 * resolver's error). A read the gateway's cache holds is answered so, without the GraphQL
 * execution and its promises around a value already known (BENCHMARKS.md).
 */
export type HotRead = (variables: Record<string, unknown>, context: RequestContext) => unknown;

/** One request to a direct route, however it arrived. */
export interface DirectCall {
  /** Path parameters, already percent-decoded. */
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** The body as received (a Buffer, or nothing). */
  rawBody: unknown;
  context: () => RequestContext;
}

export interface DirectReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A direct route's answer: at once when nothing needs waiting for (a hot read). */
export type DirectOperation = (call: DirectCall) => DirectReply | Promise<DirectReply>;

/** String or ID: a scalar whose value is text, however it was sent. */
function isTextScalar(type: GraphQLInputType): boolean {
  const named = isNonNullType(type) ? type.ofType : type;
  return isScalarType(named) && (named.name === 'String' || named.name === 'ID');
}

/** SOFA's reading of one variable: scalars through the schema's `serialize`, lists element-wise. */
function readVariable(value: unknown, type: GraphQLInputType): unknown {
  if (value === undefined || value === null) return undefined;
  if (isNonNullType(type)) return readVariable(value, type.ofType);
  if (isListType(type)) {
    return (Array.isArray(value) ? value : [value]).map((v) => readVariable(v, type.ofType));
  }
  if (isScalarType(type)) {
    return type.serialize(isEqualType(GraphQLBoolean, type) ? value === 'true' || value === true : value);
  }
  if (isInputObjectType(type)) return typeof value === 'object' ? value : JSON.parse(String(value));
  return value;
}

/**
 * The operation's data for its root field from the field's value, as GraphQL would complete it:
 * each selected field of the value's object type, in the selection's order, through its scalar's
 * `serialize`. Only for fields whose selection is leaves read straight from the value (a hot read).
 */
function leafCompletion(
  type: GraphQLOutputType,
  operation: OperationDefinitionNode,
  name: string,
): (value: unknown) => Record<string, unknown> {
  const root = operation.selectionSet.selections[0] as FieldNode;
  const named = isNonNullType(type) ? type.ofType : type;
  if (!isObjectType(named) || !root.selectionSet) throw new Error(`${name}: a hot read needs an object result`);
  const fields = named.getFields();
  const leaves = root.selectionSet.selections.map((selection) => {
    const f = selection.kind === Kind.FIELD ? fields[selection.name.value] : undefined;
    if (!f || !isLeafType(f.type) || selection.kind !== Kind.FIELD) {
      throw new Error(`${name}: a hot read completes nullable leaf fields only`);
    }
    return { key: selection.alias?.value ?? selection.name.value, name: f.name, type: f.type };
  });
  return (value) => {
    const data: Record<string, unknown> = {};
    const object = value as Record<string, unknown>;
    for (const { key, name, type: leaf } of leaves) {
      const v = object[name];
      data[key] = v === null || v === undefined ? null : leaf.serialize(v);
    }
    return data;
  };
}

/**
 * One REST route served without SOFA's HTTP runtime: the operation SOFA generates for the route's
 * field (same document, same variables read from path, query string and body in SOFA's order, same
 * success status, same error mapping), executed directly. Used for the gateway's hot routes, where
 * SOFA's request, router and response layers cost more than the call itself (BENCHMARKS.md); the
 * OpenAPI document still comes from SOFA. Never rejects: failures come back in the error shape.
 */
export function directOperation(opts: DirectRouteOptions): DirectOperation {
  const { schema, route } = opts;
  const [operationType, fieldName] = route.field.split('.') as ['Query' | 'Mutation', string];
  const kind = operationType === 'Query' ? OperationTypeNode.QUERY : OperationTypeNode.MUTATION;
  const root = kind === OperationTypeNode.QUERY ? schema.getQueryType() : schema.getMutationType();
  const field = root?.getFields()[fieldName];
  if (!field) throw new Error(`No field ${route.field} in the REST schema`);
  const operation: OperationDefinitionNode = buildOperationNodeForField({
    kind,
    schema,
    field: fieldName,
    models: [],
    ignore: opts.ignore,
    circularReferenceDepth: opts.depthLimit,
  });
  const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operation] };
  const variables = (operation.variableDefinitions ?? []).map((v) => {
    const name = v.variable.name.value;
    const arg = field.args.find((a) => a.name === name);
    if (!arg) throw new Error(`Variable ${name} of ${route.field} is not an argument`);
    return { name, type: arg.type };
  });
  const status = routeStatus(route);
  // The same cost limits as every GraphQL face; a fixed document whose cost no argument changes
  // (the gateway's) is SOFA's selection of depth 3, far below them, and is not measured per call.
  const costPerCall = costDependsOnArguments(route.field);

  // The document is fixed, so it is compiled once (graphql-jit: same results and errors as
  // graphql-js for it, measurably less CPU per call); should compiling fail, graphql-js runs it.
  const compiled = compileDocument(schema, document, operation.name?.value);
  const failure = (error: unknown, requestId: string | undefined): DirectReply => {
    const e = opts.publicError(error, requestId);
    return { status: e.status, body: errorBody(e), headers: e.headers };
  };
  const { hot } = opts;
  const complete = hot ? leafCompletion(field.type, operation, route.field) : undefined;
  if (hot && field.args.some((a) => !isLeafType(isNonNullType(a.type) ? a.type.ofType : a.type))) {
    // Input objects are checked with their class-validator rules by the resolver: never hot.
    throw new Error(`${route.field}: a hot read takes scalar arguments only`);
  }

  /** The answer of the field's data, as the route shapes it (202 when accepted, nulls, headers). */
  const answer = (data: unknown, context: RequestContext): DirectReply => {
    if (context.accepted && data !== null && typeof data === 'object') {
      // Accepted for later (Prefer: respond-async): 202 with only what is known yet.
      const known = Object.fromEntries(Object.entries(data).filter(([, v]) => v !== null));
      return { status: successStatus(route.method, true), body: known };
    }
    if (route.omitWhenNull) omitNulls(data, route.omitWhenNull);
    if (route.asHeaders && data !== null && typeof data === 'object') {
      const fields = data as Record<string, unknown>;
      const headers: Record<string, string> = {};
      for (const [key, header] of Object.entries(route.asHeaders)) {
        const value = fields[key];
        delete fields[key];
        if (value !== null && value !== undefined) headers[header.name] = String(value);
      }
      return { status, body: data, headers };
    }
    return { status, body: data };
  };

  /** The operation run by GraphQL (graphql-jit, else graphql-js). */
  const execution = async (args: ExecutionArgs): Promise<DirectReply> => {
    const result: ExecutionResult = await (compiled
      ? compiled.query(undefined, args.contextValue, args.variableValues)
      : execute(args));
    const requestId = (args.contextValue as RequestContext).requestId;
    if (result.errors && result.errors.length > 0) return failure(result.errors[0], requestId);
    const data = (result.data as Record<string, unknown> | null)?.[fieldName] ?? null;
    return answer(data, args.contextValue as RequestContext);
  };

  return (call) => {
    let requestId: string | undefined;
    let body: Record<string, unknown>;
    const variableValues: Record<string, unknown> = {};
    try {
      body = opts.parseBody(call.rawBody);
      for (const { name, type } of variables) {
        const raw = Object.hasOwn(call.params, name) ? call.params[name] : (call.query[name] ?? body[name]);
        // A text argument (wei, gas) sent as a JSON number would be stringified after JSON.parse
        // rounded it: refused unless it is a safe integer (docs/api.md, "Conventions").
        if (typeof raw === 'number' && !Number.isSafeInteger(raw) && isTextScalar(type)) {
          throw new AppError(
            'VALIDATION_FAILED',
            `${name} must be a decimal string; a JSON number that is not a safe integer would be rounded`,
            { field: name },
          );
        }
        let value: unknown;
        try {
          value = readVariable(raw, type);
        } catch (e) {
          throw new AppError('VALIDATION_FAILED', e instanceof Error ? e.message : `Invalid value for ${name}`, {
            field: name,
          });
        }
        if (value !== undefined) variableValues[name] = value;
      }
      const contextValue = call.context();
      requestId = contextValue.requestId;
      const args = opts.prepare(
        { schema, document, variableValues, contextValue, operationName: operation.name?.value },
        body,
      );
      if (costPerCall) assertCost(schema, document, args.variableValues, args.operationName);
      const vars = args.variableValues ?? {};
      // The resolvers' argument rule (no control characters) holds first; a refusal is the operation's.
      if (hot && complete && controlCharacterPath(vars) === undefined) {
        const context = args.contextValue as RequestContext;
        const value = hot(vars, context);
        if (value instanceof Promise) {
          return value
            .then((v: unknown) => (v === undefined ? execution(args) : answer(complete(v), context)))
            .catch((e: unknown) => failure(e, requestId));
        }
        if (value !== undefined) return answer(complete(value), context);
      }
      return execution(args).catch((e: unknown) => failure(e, requestId));
    } catch (e) {
      return failure(e, requestId);
    }
  };
}

/** A direct route as the HTTP server matches it: its full path and its operation. */
export interface DirectEndpoint {
  method: RestRoute['method'];
  /** Full path with `{param}` placeholders, area base included. */
  path: string;
  run: DirectOperation;
}

export interface DirectDispatchHooks {
  /** Body size limit in bytes, and the answer to a larger body (413, as for every route). */
  maxBody: number;
  tooLarge: PublicError;
  /** The answer to a path parameter that is not valid percent-encoding (400, as for every route). */
  badPath: PublicError;
  /** Starts request bookkeeping (request id, metrics, log line); returns the request id. */
  begin: (req: http.IncomingMessage, res: http.ServerResponse, path: string) => string;
  context: (requestId: string, req: http.IncomingMessage) => RequestContext;
  /** Maps (and logs) an error that escaped everything else, such as a result JSON cannot hold. */
  unexpected: (error: unknown, requestId: string) => PublicError;
}

function reply(res: http.ServerResponse, r: DirectReply): void {
  const text = JSON.stringify(r.body);
  res.statusCode = r.status;
  if (r.headers) for (const [k, v] of Object.entries(r.headers)) res.setHeader(k, v);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(text));
  endTogether(res, text);
}

/**
 * Reads a request's uncompressed body of at most `maxBody` bytes and hands it to `then`; a larger
 * one (declared or sent) is answered with `tooLarge` (by `send`, the REST error body unless given)
 * and the rest of it is discarded.
 */
export function readPlainBody(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  limit: { maxBody: number; tooLarge: PublicError; send?: (res: http.ServerResponse, e: PublicError) => void },
  then: (body: Buffer | undefined) => void,
): void {
  const send = limit.send ?? sendErrorResponse;
  const declared = Number(req.headers['content-length']);
  if (declared > limit.maxBody) {
    send(res, limit.tooLarge);
    req.resume();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  req.on('data', (chunk: Buffer) => {
    if (refused) return;
    size += chunk.length;
    if (size > limit.maxBody) {
      refused = true;
      send(res, limit.tooLarge);
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (!refused) then(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  });
}

/**
 * Serves the direct routes straight from Node's HTTP server, before express: an exact match of the
 * path (as docs/api.md spells it) with a plain body. Anything else (another method, a trailing slash or
 * other letter case, a compressed body) returns false and goes through express, whose routes for
 * the same operations answer the same way; the tests hold both to the same answers.
 */
export function directDispatcher(
  endpoints: DirectEndpoint[],
  hooks: DirectDispatchHooks,
): (req: http.IncomingMessage, res: http.ServerResponse) => boolean {
  const compiled = endpoints.map((e) => {
    const names: string[] = [];
    const source = e.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    return { ...e, pattern: new RegExp(`^${source}$`), names };
  });
  return (req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    let endpoint: (typeof compiled)[number] | undefined;
    let match: RegExpExecArray | null = null;
    for (const e of compiled) {
      if (e.method !== req.method) continue;
      match = e.pattern.exec(path);
      if (match) {
        endpoint = e;
        break;
      }
    }
    if (!endpoint || !match) return false;
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;

    const requestId = hooks.begin(req, res, path);
    const params: Record<string, string> = {};
    try {
      for (let i = 0; i < endpoint.names.length; i++) params[endpoint.names[i]!] = decodeURIComponent(match[i + 1]!);
    } catch {
      sendErrorResponse(res, hooks.badPath);
      req.resume();
      return true;
    }
    readPlainBody(req, res, hooks, (rawBody) => {
      const unexpected = (error: unknown) => sendErrorResponse(res, hooks.unexpected(error, requestId));
      try {
        const run = endpoint.run({
          params,
          query: q === -1 ? {} : parseQueryString(url.slice(q + 1)),
          rawBody,
          context: () => hooks.context(requestId, req),
        });
        if (run instanceof Promise) run.then((r) => reply(res, r)).catch(unexpected);
        else reply(res, run);
      } catch (error) {
        unexpected(error);
      }
    });
    return true;
  };
}
