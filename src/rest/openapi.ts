import { ERROR_STATUS } from '../kernel/errors/error-codes';
import { AREA_BASE, routeStatus, toRouterPath, type RestArea, type RestRoute } from './routes';

/** An OpenAPI 3 document as plain JSON (only the parts this module touches are typed). */
export interface OpenApiDocument {
  openapi: string;
  info: Record<string, unknown>;
  servers?: Array<{ url: string; description?: string }>;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown>; securitySchemes?: Record<string, unknown> };
  [key: string]: unknown;
}

interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown; description?: string }>;
  requestBody?: { content?: Record<string, { schema?: JsonSchema }>; required?: boolean };
  responses?: Record<string, unknown>;
  security?: Array<Record<string, string[]>>;
  [key: string]: unknown;
}

interface JsonSchema {
  type?: string;
  properties?: Record<string, unknown>;
  required?: string[];
  [key: string]: unknown;
}

/** The JSON value null, in OpenAPI 3.0 terms. */
const NULL_ONLY = { type: 'object', nullable: true, enum: [null] };

/**
 * GraphQL nullable fields of output types are present in every response, as `null` when empty:
 * OpenAPI 3.0 must say `nullable` (on a `$ref`, as one of the reference and null, since siblings
 * of `$ref` are ignored), or generated clients get types that real responses break.
 */

/**
 * Fields null only in GraphQL answers REST gives another status and shape (an invoke accepted with
 * `Prefer: respond-async` is 202 `{transactionId, status}`): always set in the documented answer.
 */
const ALWAYS_SET: Record<string, string[]> = { GatewayInvokeResult: ['txHash'] };

function markNullableFields(schemas: Record<string, unknown>, outputTypes: ReadonlySet<string>): void {
  for (const [name, schema] of Object.entries(schemas) as Array<[string, JsonSchema]>) {
    if (!outputTypes.has(name) || !schema.properties) continue;
    for (const [prop, value] of Object.entries(schema.properties) as Array<[string, JsonSchema]>) {
      if (schema.required?.includes(prop)) continue;
      if (ALWAYS_SET[name]?.includes(prop)) {
        schema.required = [...(schema.required ?? []), prop];
        continue;
      }
      if (typeof value.$ref === 'string') {
        const { $ref, ...rest } = value;
        // `nullable` beside `allOf` still lets the referenced schema refuse null (Ajv, Prism): one of the two.
        schema.properties[prop] = { ...rest, oneOf: [{ $ref }, NULL_ONLY] };
      } else {
        value.nullable = true;
      }
    }
  }
}

/**
 * Operation tags by path (under the area's base), first match wins: the sections of docs/api.md.
 * A route no pattern names gets its area's tag, so every operation has a defined tag.
 */
const TAG_RULES: ReadonlyArray<{ area: RestArea; pattern: RegExp; tag: string }> = [
  { area: 'devportal', pattern: /^\/auth\//, tag: 'Authentication' },
  { area: 'devportal', pattern: /^\/contracts\/\{id\}\/(query|invoke)\//, tag: 'Gateway' },
  { area: 'devportal', pattern: /^\/contracts\/\{id\}\/events$/, tag: 'Contract events' },
  { area: 'devportal', pattern: /^\/admin\/contracts/, tag: 'Mainnet approval' },
  { area: 'devportal', pattern: /^(\/developers\/\{id\})?\/contracts/, tag: 'Contracts' },
  {
    area: 'devportal',
    pattern: /^(\/wallets\/|\/faucet\/|\/developers\/\{id\}\/wallet-history)/,
    tag: 'Wallet and faucet',
  },
  { area: 'devportal', pattern: /api-keys/, tag: 'API keys' },
  { area: 'devportal', pattern: /webhooks/, tag: 'Webhooks' },
  { area: 'devportal', pattern: /^\/transactions\//, tag: 'Transactions' },
  { area: 'devportal', pattern: /\/analytics$/, tag: 'Analytics' },
  { area: 'devportal', pattern: /^(\/developers\/\{id\}|\/projects)$/, tag: 'Developers and projects' },
  { area: 'explorer', pattern: /^\/(live-blocks|block\/)/, tag: 'Blocks' },
  { area: 'explorer', pattern: /^\/tx\//, tag: 'Transactions' },
  { area: 'explorer', pattern: /^\/address\//, tag: 'Addresses' },
  { area: 'explorer', pattern: /^\/search$/, tag: 'Search' },
  { area: 'explorer', pattern: /^\/network-status$/, tag: 'Network' },
  { area: 'explorer', pattern: /^\/verified-assets\//, tag: 'Verified assets' },
];

const TAG_DESCRIPTIONS: Record<string, string> = {
  Authentication: 'Login by electronic digital signature, profile and logout',
  'Developers and projects': 'Developer profile and projects',
  'Wallet and faucet': 'Balances, the custodial wallet’s history and test coins',
  Contracts: 'Compile, deploy and register contracts; their generated API documents',
  'Mainnet approval': 'Administrators review mainnet deployments',
  'API keys': 'Keys for the contract gateway',
  Webhooks: 'Signed HTTP notifications of a developer’s events',
  Gateway: 'Read and write deployed, registered contracts with an API key',
  'Contract events': 'Decoded events of a contract',
  Transactions: 'Transaction records of invokes, deployments and faucet drips',
  Analytics: 'Gateway usage',
  Blocks: 'Blocks of a network',
  Addresses: 'Balances, code and activity of an address',
  Search: 'Search by number, hash, address or name',
  Network: 'Health and progress of a network and its index',
  'Verified assets': 'Verified mainnet token assets',
  'Developer portal': 'Developer portal',
  Explorer: 'Block explorer',
};

/** Where the explorer's tag of the same name means something else. */
const EXPLORER_TAG_DESCRIPTIONS: Record<string, string> = {
  Transactions: 'Transactions with their receipts and logs',
};

/** The tag of a route's operation (TAG_RULES). */
function tagOf(route: RestRoute): string {
  return (
    TAG_RULES.find((r) => r.area === route.area && r.pattern.test(route.path))?.tag ??
    (route.area === 'devportal' ? 'Developer portal' : 'Explorer')
  );
}

/**
 * `Prefer: respond-async` (RFC 7240), honoured by these operations (by operationId): answered 202
 * with the record to follow (docs/api.md, Gateway and Contracts).
 */
const ASYNC_OPERATIONS: Record<string, string> = {
  invokeContract:
    '`respond-async`: answer 202 `{"transactionId", "status": "queued"}` once every check has passed, ' +
    'without waiting for the transaction to be sent or mined; follow it with GET /api/devportal/transactions/{id}.',
  deployContract:
    '`respond-async`: on testnet, answer 202 `{"transactionId", "status": "queued"}` once the sources ' +
    'compiled and every check has passed, without waiting for the deployment to be sent or mined; the ' +
    'record (GET /api/devportal/transactions/{id}) names the contract in `contractId`, whose status moves ' +
    'from deploying to deployed or failed. A mainnet deployment waits for approval and answers 201 as ever.',
};

/** The 202 body of an operation accepted for later (`Prefer: respond-async`). */
const ACCEPTED_SCHEMA = {
  type: 'object',
  description: 'Accepted for later (Prefer: respond-async): the transaction record to follow',
  required: ['transactionId', 'status'],
  properties: {
    transactionId: {
      type: 'string',
      format: 'uuid',
      description: 'Id of the transaction record (GET /api/devportal/transactions/{id})',
    },
    status: { type: 'string', enum: ['queued'], description: 'Always `queued`: accepted, nothing signed yet' },
  },
};

const TITLES: Record<RestArea, string> = {
  devportal: 'Developer portal and contract gateway',
  explorer: 'Explorer',
};

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

/** The gateway refuses developer tokens (401 INVALID_API_KEY): an API key is its only credential. */
const SECURITY: Record<RestRoute['auth'], Array<Record<string, string[]>>> = {
  public: [],
  'dev-jwt': [{ BearerAuth: [] }],
  'api-key': [{ ApiKeyAuth: [] }],
  // Either one: OpenAPI lists alternatives as separate requirement objects.
  'dev-jwt-or-api-key': [{ BearerAuth: [] }, { ApiKeyAuth: [] }],
};

/**
 * Statuses beyond the common ones that an operation answers (by operationId): 401 EDS_INVALID,
 * 409 state and idempotency conflicts, 422 compilation and execution, 429 limits, 502 node errors.
 */
const EXTRA_STATUSES: Record<string, number[]> = {
  edsLogin: [401],
  walletBalance: [502],
  faucetDrip: [429, 502],
  compileContract: [422],
  deployContract: [409, 422, 502],
  registerContractMiddleware: [409],
  contractSwagger: [409, 422],
  contractOpenApi: [409, 422],
  approveContract: [409, 422, 502],
  rejectContract: [409],
  cancelTransaction: [409],
  retryTransaction: [409, 422, 502],
  createApiKey: [409],
  revokeApiKey: [409],
  queryContract: [409, 422, 429, 502],
  invokeContract: [409, 422, 429, 502],
  contractEvents: [409],
  // A deleted webhook (docs/api.md, Webhooks).
  testWebhook: [409],
  redeliverWebhookDelivery: [409],
  rotateWebhookSecret: [409],
};

/** Error statuses a route can answer, for its documented responses. */
function errorStatuses(route: RestRoute): number[] {
  const s = new Set<number>([400, 500, 503]);
  if (route.auth !== 'public') {
    s.add(401);
    s.add(403);
  }
  if (route.path.includes('{')) s.add(404);
  if (route.method === 'POST' || route.method === 'PATCH') {
    s.add(413);
    s.add(415);
  }
  // The explorer reads the node for whatever its index does not hold.
  if (route.area === 'explorer') s.add(502);
  for (const status of EXTRA_STATUSES[route.field.split('.')[1]!] ?? []) s.add(status);
  return [...s].sort();
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * OpenAPI 3.0 rules the generated schemas break: siblings of `$ref` are ignored (so a description
 * or `nullable` beside one is lost; wrapped in `allOf`), and `nullable` only means something
 * beside a `type` (taken from the referenced schema; dropped where any JSON value is allowed).
 */
function fixSchema(node: unknown, schemas: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((n) => fixSchema(n, schemas));
  if (!isObject(node)) return node;
  let out: Json = {};
  for (const [k, v] of Object.entries(node)) out[k] = k === 'example' || k === 'enum' ? v : fixSchema(v, schemas);
  if (typeof out.$ref === 'string' && Object.keys(out).length > 1) {
    const { $ref, ...rest } = out;
    out = { ...rest, allOf: [{ $ref }] };
  }
  if (out.nullable === true && out.type === undefined) {
    const only =
      Array.isArray(out.allOf) && out.allOf.length === 1 && isObject(out.allOf[0]) ? out.allOf[0] : undefined;
    const target = typeof only?.$ref === 'string' ? schemas[only.$ref.replace('#/components/schemas/', '')] : undefined;
    if (isObject(target) && typeof target.type === 'string') out.type = target.type;
    else delete out.nullable;
  }
  return out;
}

/** Bounds and default of an integer parameter, as its description states them ("1 to 100; default 25"). */
function boundsFromDescription(schema: Json): void {
  if (schema.type !== 'integer' || typeof schema.description !== 'string') return;
  const range = /(\d+) to (\d+)/.exec(schema.description);
  if (range) {
    schema.minimum = Number(range[1]);
    schema.maximum = Number(range[2]);
  }
  const fallback = /default (\d+)/.exec(schema.description);
  if (fallback) schema.default = Number(fallback[1]);
}

/** Closed sets the GraphQL schema types as String: their values, by schema and property. */
const CLOSED_SETS: Record<string, Record<string, string[]>> = {
  Contract: { status: ['compiled', 'deploying', 'deployed', 'failed', 'rejected'] },
  ApiKeyInfo: { status: ['active', 'revoked'] },
  CreatedApiKey: { status: ['active'] },
  RevokedApiKey: { status: ['revoked'] },
  WalletHistoryItem: {
    kind: ['faucet', 'deploy', 'invoke', 'transfer-in', 'transfer-out'],
    status: ['pending', 'success', 'reverted', 'failed'],
  },
  GatewayInvokeResult: { status: ['success', 'reverted', 'pending', 'queued'] },
  GatewayTransaction: {
    kind: ['invoke', 'deploy', 'faucet'],
    status: ['queued', 'pending', 'success', 'reverted', 'failed'],
  },
};

/**
 * A list whose items are one of several object types told apart by their `type` field (explorer
 * search results): `oneOf` with a discriminator, each variant's `type` a single value.
 */
function discriminate(schemas: Record<string, unknown>): void {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isObject(node)) return;
    const variants = Array.isArray(node.oneOf) ? node.oneOf : undefined;
    const refs = variants?.map((v) => (isObject(v) && typeof v.$ref === 'string' ? v.$ref : undefined));
    if (refs && refs.length > 1 && refs.every((r) => r !== undefined)) {
      const mapping: Record<string, string> = {};
      for (const ref of refs as string[]) {
        const target = schemas[ref.replace('#/components/schemas/', '')];
        const typeProp = isObject(target) && isObject(target.properties) ? target.properties.type : undefined;
        const description = isObject(typeProp) && typeof typeProp.description === 'string' ? typeProp.description : '';
        const value = /Always `(\w+)`/.exec(description)?.[1];
        if (!value || !isObject(target) || !isObject(target.properties)) return;
        target.properties.type = { type: 'string', enum: [value], description };
        mapping[value] = ref;
      }
      node.discriminator = { propertyName: 'type', mapping };
      return;
    }
    Object.values(node).forEach(visit);
  };
  Object.values(schemas).forEach(visit);
}

interface OpenApiResponse {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema?: JsonSchema }>;
}

/** Fields a route answers as headers: documented as headers, gone from the body's schema. */
function moveFieldsToHeaders(
  response: OpenApiResponse,
  asHeaders: NonNullable<RestRoute['asHeaders']>,
  schemas: Record<string, unknown>,
): void {
  const schema = response.content?.['application/json']?.schema;
  const ref = typeof schema?.$ref === 'string' ? schema.$ref.replace('#/components/schemas/', '') : undefined;
  const target = (ref ? schemas[ref] : schema) as JsonSchema | undefined;
  response.headers ??= {};
  for (const [field, header] of Object.entries(asHeaders)) {
    if (target?.properties) delete target.properties[field];
    if (target?.required) {
      target.required = target.required.filter((r) => r !== field);
      // OpenAPI 3.0 (JSON Schema draft 4) refuses an empty `required`.
      if (target.required.length === 0) delete target.required;
    }
    response.headers[header.name] = { description: header.description, schema: { type: 'integer', minimum: 0 } };
  }
}

/**
 * Turns the document SOFA generates into the one we serve: only our routes, operationIds named
 * after the GraphQL fields, path parameters no longer repeated as body fields, flat bodies for
 * `input` arguments, security schemes and error responses declared.
 */
export function buildOpenApiDocument(opts: {
  area: RestArea;
  generated: OpenApiDocument;
  routes: readonly RestRoute[];
  inputTypes: Map<string, string>;
  /** Arguments with a default value, by field: optional for clients whatever their GraphQL type. */
  defaultedArgs?: Map<string, string[]>;
  /** Descriptions of the GraphQL fields, by `Query.name` / `Mutation.name`. */
  descriptions?: Map<string, string>;
  /** Object (output) types, whose nullable fields answer null. */
  outputTypes?: ReadonlySet<string>;
  servers: string[];
}): OpenApiDocument {
  const base = AREA_BASE[opts.area];
  const generated = structuredClone(opts.generated);
  markNullableFields(generated.components.schemas, opts.outputTypes ?? new Set());
  const paths: OpenApiDocument['paths'] = {};
  for (const route of opts.routes) {
    const key = Object.keys(generated.paths).find(
      (p) => p === route.path || p === `${base}${route.path}` || p === toRouterPath(route.path),
    );
    const op: OpenApiOperation = (key && generated.paths[key]?.[route.method.toLowerCase()]) || {};
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    op.operationId = route.field.split('.')[1];
    op.summary = route.summary;
    op.tags = [tagOf(route)];
    // The GraphQL field's description (SOFA sets it on mutations only), else the summary.
    op.description ||= opts.descriptions?.get(route.field) || route.summary;
    op.security = SECURITY[route.auth];
    const defaulted = opts.defaultedArgs?.get(route.field) ?? [];
    // A POST takes its arguments in the JSON body; SOFA also lists them as query parameters.
    op.parameters = (op.parameters ?? []).filter(
      (p) => p.in !== 'path' && !(route.method !== 'GET' && route.method !== 'DELETE' && p.in === 'query'),
    );
    for (const p of op.parameters) if (defaulted.includes(p.name)) p.required = false;
    for (const name of pathParams) {
      op.parameters.unshift({ name, in: 'path', required: true, schema: { type: 'string' } });
    }
    const body = op.requestBody?.content?.['application/json']?.schema;
    const inputType = opts.inputTypes.get(route.field);
    if (route.method !== 'POST' && route.method !== 'PATCH') {
      delete op.requestBody;
    } else if (inputType) {
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${inputType}` } } },
      };
    } else if (body?.properties) {
      for (const name of pathParams) delete body.properties[name];
      body.required = (body.required ?? []).filter((r) => !pathParams.includes(r) && !defaulted.includes(r));
      // OpenAPI 3.0 (JSON Schema draft 4) refuses an empty `required`.
      if (body.required.length === 0) delete body.required;
      if (Object.keys(body.properties).length === 0) delete op.requestBody;
    }
    if (route.method === 'POST' && !op.requestBody) {
      // Clients commonly send {} with every POST; the service takes it, or no body, alike.
      op.requestBody = {
        content: {
          'application/json': { schema: { type: 'object', description: 'No fields: omit the body or send {}' } },
        },
      };
    }
    if (op.requestBody) {
      // A body whose every field is optional may be left out: the service takes none as {}.
      const schema = op.requestBody.content?.['application/json']?.schema as Json | undefined;
      const ref = typeof schema?.$ref === 'string' ? schema.$ref.replace('#/components/schemas/', '') : undefined;
      const target = (ref ? generated.components.schemas[ref] : schema) as JsonSchema | undefined;
      op.requestBody.required = (target?.required?.length ?? 0) > 0;
    }
    for (const p of op.parameters) if (isObject(p.schema)) boundsFromDescription(p.schema);
    if (op.operationId === 'invokeContract') {
      op.parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'A repeat with the same key (per developer, 24 h) returns the first response and sends nothing; ' +
          'the same key with another body → 422 IDEMPOTENCY_KEY_REUSED; while the first is in flight → 409.',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      });
    }
    const asyncNote = ASYNC_OPERATIONS[op.operationId!];
    if (asyncNote) {
      op.parameters.push({
        name: 'Prefer',
        in: 'header',
        required: false,
        description: asyncNote,
        schema: { type: 'string', example: 'respond-async' },
      });
    }
    const ok = routeStatus(route);
    const success = op.responses?.[ok] ?? op.responses?.['200'] ?? { description: 'Success' };
    op.responses = { [ok]: success };
    if (asyncNote) {
      op.responses['202'] = {
        description: 'Accepted for later (`Prefer: respond-async`): sent and followed in the background',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/AcceptedTransaction' } } },
      };
    }
    if (route.asHeaders) moveFieldsToHeaders(success as OpenApiResponse, route.asHeaders, generated.components.schemas);
    for (const status of errorStatuses(route)) {
      op.responses[status] = errorResponse(
        Object.entries(ERROR_STATUS)
          .filter(([, s]) => s === status)
          .map(([c]) => c)
          .join(', '),
      );
    }
    const docPath = `${base}${route.path}`;
    paths[docPath] = { ...(paths[docPath] ?? {}), [route.method.toLowerCase()]: op };
  }
  const schemas = generated.components.schemas;
  for (const [name, props] of Object.entries(CLOSED_SETS)) {
    const schema = schemas[name] as JsonSchema | undefined;
    for (const [prop, values] of Object.entries(props)) {
      const field = schema?.properties?.[prop];
      if (isObject(field) && field.type === 'string') field.enum = values;
    }
  }
  discriminate(schemas);
  for (const name of Object.keys(schemas)) schemas[name] = fixSchema(schemas[name], schemas);
  for (const ops of Object.values(paths)) {
    for (const op of Object.values(ops)) {
      op.parameters = fixSchema(op.parameters, schemas) as OpenApiOperation['parameters'];
      if (op.requestBody) op.requestBody = fixSchema(op.requestBody, schemas) as OpenApiOperation['requestBody'];
      op.responses = fixSchema(op.responses, schemas) as OpenApiOperation['responses'];
    }
  }
  const schemasOut: Record<string, unknown> = {
    // The root operation types are SOFA's bookkeeping, not shapes any route sends or returns.
    ...Object.fromEntries(
      Object.entries(generated.components.schemas).filter(
        ([name]) => !['Query', 'Mutation', 'Subscription'].includes(name),
      ),
    ),
    Error: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
            message: { type: 'string' },
            details: { type: 'object', additionalProperties: true },
          },
        },
      },
    },
    AcceptedTransaction: ACCEPTED_SCHEMA,
  };
  const operations = Object.values(paths).flatMap((ops) => Object.values(ops));
  // Only the schemes some operation names: a public document offers no credentials to enter.
  const usedSchemes = new Set(operations.flatMap((op) => (op.security ?? []).flatMap((req) => Object.keys(req))));
  const securitySchemes = Object.fromEntries(
    Object.entries(SECURITY_SCHEMES).filter(([name]) => usedSchemes.has(name)),
  );
  const tags = [...new Set(operations.flatMap((op) => op.tags ?? []))];
  return {
    openapi: '3.0.3',
    info: {
      title: TITLES[opts.area],
      version: '1.0.0',
      description: `REST API under ${base}. Errors are {"error": {"code", "message", "details"?}}.`,
      ...(opts.servers[0] ? { contact: { name: 'Developer portal', url: opts.servers[0] } } : {}),
    },
    servers: opts.servers.map((url) => ({ url })),
    tags: tags.map((name) => ({
      name,
      description:
        (opts.area === 'explorer' ? EXPLORER_TAG_DESCRIPTIONS[name] : undefined) ?? TAG_DESCRIPTIONS[name] ?? name,
    })),
    paths,
    components: {
      schemas: referencedOnly(schemasOut, paths),
      ...(Object.keys(securitySchemes).length > 0 ? { securitySchemes } : {}),
    },
  };
}

const SECURITY_SCHEMES: Record<string, unknown> = {
  BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
  ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key' },
};

/**
 * The schemas the paths reach, directly or through other schemas: enums SOFA also inlines where
 * they are used (ApiKeyScope, TransactionStatus, ...) would otherwise stand unused.
 */
function referencedOnly(schemas: Record<string, unknown>, paths: unknown): Record<string, unknown> {
  const kept = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isObject(node)) return;
    if (typeof node.$ref === 'string') {
      const name = node.$ref.replace('#/components/schemas/', '');
      if (!kept.has(name) && name in schemas) {
        kept.add(name);
        visit(schemas[name]);
      }
    }
    for (const [k, v] of Object.entries(node)) if (k !== 'example' && k !== 'enum') visit(v);
  };
  visit(paths);
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => kept.has(name)));
}
