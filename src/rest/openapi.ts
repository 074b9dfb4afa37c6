import { ERROR_STATUS } from '../errors/error-codes';
import { AREA_BASE, successStatus, toRouterPath, type RestArea, type RestRoute } from './routes';

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
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
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

/**
 * GraphQL nullable fields of output types are present in every response, as `null` when empty:
 * OpenAPI 3.0 must say `nullable` (on a `$ref`, through `allOf`, since siblings of `$ref` are
 * ignored), or generated clients get types that real responses break.
 */
function markNullableFields(schemas: Record<string, unknown>, outputTypes: ReadonlySet<string>): void {
  for (const [name, schema] of Object.entries(schemas) as Array<[string, JsonSchema]>) {
    if (!outputTypes.has(name) || !schema.properties) continue;
    for (const [prop, value] of Object.entries(schema.properties) as Array<[string, JsonSchema]>) {
      if (schema.required?.includes(prop)) continue;
      if (typeof value.$ref === 'string') {
        const { $ref, ...rest } = value;
        schema.properties[prop] = { ...rest, allOf: [{ $ref }], nullable: true };
      } else {
        value.nullable = true;
      }
    }
  }
}

const TITLES: Record<RestArea, string> = {
  devportal: 'Developer portal and contract gateway',
  explorer: 'Explorer',
};

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const SECURITY: Record<RestRoute['auth'], Array<Record<string, string[]>>> = {
  public: [],
  'dev-jwt': [{ BearerAuth: [] }],
  'api-key': [{ ApiKeyAuth: [] }, { BearerAuth: [] }],
};

/** Error statuses a route can answer, for its documented responses. */
function errorStatuses(route: RestRoute): number[] {
  const s = new Set<number>([400, 500, 503]);
  if (route.auth !== 'public') {
    s.add(401);
    s.add(403);
  }
  if (route.path.includes('{')) s.add(404);
  if (route.method === 'POST') s.add(413);
  return [...s].sort();
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
    op.tags = [opts.area];
    op.security = SECURITY[route.auth];
    const defaulted = opts.defaultedArgs?.get(route.field) ?? [];
    // A POST takes its arguments in the JSON body; SOFA also lists them as query parameters.
    op.parameters = (op.parameters ?? []).filter(
      (p) => p.in !== 'path' && !(route.method === 'POST' && p.in === 'query'),
    );
    for (const p of op.parameters) if (defaulted.includes(p.name)) p.required = false;
    for (const name of pathParams) {
      op.parameters.unshift({ name, in: 'path', required: true, schema: { type: 'string' } });
    }
    const body = op.requestBody?.content?.['application/json']?.schema;
    const inputType = opts.inputTypes.get(route.field);
    if (route.method !== 'POST') {
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
    const ok = successStatus(route);
    const success = op.responses?.[ok] ?? op.responses?.['200'] ?? { description: 'Success' };
    op.responses = { [ok]: success };
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
  return {
    openapi: '3.0.3',
    info: {
      title: TITLES[opts.area],
      version: '1.0.0',
      description: `REST API under ${base}. Errors are {"error": {"code", "message", "details"?}}.`,
    },
    servers: opts.servers.map((url) => ({ url })),
    paths,
    components: {
      schemas: {
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
      },
      securitySchemes: {
        BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      },
    },
  };
}
