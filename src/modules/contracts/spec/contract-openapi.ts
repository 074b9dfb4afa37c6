import { contractOperations, type ContractSpecInput } from './contract-operations';
import {
  ACCEPTED_DESCRIPTION,
  ACCEPTED_SCHEMA,
  BLOCK_HEADER,
  bodyRequired,
  ERROR_RESPONSES,
  ERROR_SCHEMA,
  infoOf,
  operationDescription,
  PREFER_HEADER,
  requestSchema,
  responseSchema,
  trimBaseUrl,
} from './operation-schemas';

/** Per-contract OpenAPI 3.0.3 document of the gateway (docs/api.md, "Contracts"): one POST per ABI function. */
export function buildContractOpenApi(c: ContractSpecInput): object {
  const operations = contractOperations(c);
  const schemas: Record<string, unknown> = { Error: ERROR_SCHEMA };
  const paths: Record<string, unknown> = {};
  const errorRefs = Object.fromEntries(
    ERROR_RESPONSES.map((e) => [e.status, { $ref: `#/components/responses/${e.name}` }]),
  );

  for (const op of operations) {
    // Named components give generators readable model names instead of InlineObject1, InlineObject2, ...
    const request = `${op.operationId}_request`;
    const response = `${op.operationId}_response`;
    schemas[request] = requestSchema(op, 'openapi3');
    schemas[response] = responseSchema(op, 'openapi3');
    paths[op.path] = {
      post: {
        operationId: op.operationId,
        summary: op.method.signature,
        description: operationDescription(op),
        tags: [op.kind],
        security: [{ ApiKeyAuth: [] }],
        ...(op.kind === 'invoke'
          ? {
              parameters: [
                { $ref: '#/components/parameters/IdempotencyKey' },
                { $ref: '#/components/parameters/Prefer' },
              ],
            }
          : {}),
        requestBody: {
          required: bodyRequired(op),
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${request}` } } },
        },
        responses: {
          '201': {
            description: op.kind === 'query' ? 'Decoded return value' : 'Transaction sent',
            ...(op.kind === 'query'
              ? {
                  headers: { 'x-block-number': { description: BLOCK_HEADER, schema: { type: 'integer', minimum: 0 } } },
                }
              : {}),
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${response}` } } },
          },
          ...(op.kind === 'invoke'
            ? {
                '202': {
                  description: ACCEPTED_DESCRIPTION,
                  content: { 'application/json': { schema: { $ref: '#/components/schemas/Accepted' } } },
                },
              }
            : {}),
          ...errorRefs,
        },
      },
    };
  }

  // Invoke-only parts are declared where some operation uses them (an unused component is a lint warning).
  const invokes = operations.some((op) => op.kind === 'invoke');
  if (invokes) schemas.Accepted = ACCEPTED_SCHEMA;
  return {
    openapi: '3.0.3',
    info: infoOf(c),
    ...(c.servers.length > 0 ? { servers: c.servers.map((url) => ({ url: trimBaseUrl(url) })) } : {}),
    tags: [
      { name: 'query', description: 'Read calls (view and pure functions)' },
      { name: 'invoke', description: 'Transactions (state-changing functions)' },
    ],
    security: [{ ApiKeyAuth: [] }],
    paths,
    components: {
      securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      ...(invokes
        ? {
            parameters: {
              IdempotencyKey: {
                name: 'Idempotency-Key',
                in: 'header',
                required: false,
                description: 'A repeat with the same key within 24 h returns the first response and sends nothing',
                schema: { type: 'string', maxLength: 255 },
              },
              Prefer: {
                name: 'Prefer',
                in: 'header',
                required: false,
                description: PREFER_HEADER,
                schema: { type: 'string', example: 'respond-async' },
              },
            },
          }
        : {}),
      schemas,
      responses: Object.fromEntries(
        ERROR_RESPONSES.map((e) => [
          e.name,
          {
            description: e.description,
            ...(e.status === '429'
              ? { headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } } }
              : {}),
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
    },
  };
}
