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
} from './operation-schemas';

/** Per-contract Swagger 2.0 document of the gateway: the same operations as the OpenAPI 3.0.3 one. */
export function buildContractSwagger(c: ContractSpecInput): object {
  const operations = contractOperations(c);
  const definitions: Record<string, unknown> = { Error: ERROR_SCHEMA };
  const paths: Record<string, unknown> = {};
  const errorRefs = Object.fromEntries(ERROR_RESPONSES.map((e) => [e.status, { $ref: `#/responses/${e.name}` }]));

  for (const op of operations) {
    const request = `${op.operationId}_request`;
    const response = `${op.operationId}_response`;
    definitions[request] = requestSchema(op, 'swagger2');
    definitions[response] = responseSchema(op, 'swagger2');
    paths[op.path] = {
      post: {
        operationId: op.operationId,
        summary: op.method.signature,
        description: operationDescription(op),
        tags: [op.kind],
        security: [{ ApiKeyAuth: [] }],
        parameters: [
          { in: 'body', name: 'body', required: bodyRequired(op), schema: { $ref: `#/definitions/${request}` } },
          ...(op.kind === 'invoke' ? [{ $ref: '#/parameters/IdempotencyKey' }, { $ref: '#/parameters/Prefer' }] : []),
        ],
        responses: {
          '201': {
            description: op.kind === 'query' ? 'Decoded return value' : 'Transaction sent',
            ...(op.kind === 'query'
              ? { headers: { 'x-block-number': { type: 'integer', minimum: 0, description: BLOCK_HEADER } } }
              : {}),
            schema: { $ref: `#/definitions/${response}` },
          },
          ...(op.kind === 'invoke'
            ? { '202': { description: ACCEPTED_DESCRIPTION, schema: { $ref: '#/definitions/Accepted' } } }
            : {}),
          ...errorRefs,
        },
      },
    };
  }

  // Invoke-only parts are declared where some operation uses them (an unused component is a lint warning).
  const invokes = operations.some((op) => op.kind === 'invoke');
  if (invokes) definitions.Accepted = ACCEPTED_SCHEMA;
  return {
    swagger: '2.0',
    info: infoOf(c),
    ...hostOf(c.servers[0]),
    consumes: ['application/json'],
    produces: ['application/json'],
    tags: [
      { name: 'query', description: 'Read calls (view and pure functions)' },
      { name: 'invoke', description: 'Transactions (state-changing functions)' },
    ],
    security: [{ ApiKeyAuth: [] }],
    securityDefinitions: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
    paths,
    definitions,
    ...(invokes
      ? {
          parameters: {
            IdempotencyKey: {
              name: 'Idempotency-Key',
              in: 'header',
              required: false,
              type: 'string',
              maxLength: 255,
              description: 'A repeat with the same key within 24 h returns the first response and sends nothing',
            },
            Prefer: { name: 'Prefer', in: 'header', required: false, type: 'string', description: PREFER_HEADER },
          },
        }
      : {}),
    responses: Object.fromEntries(
      ERROR_RESPONSES.map((e) => [
        e.name,
        {
          description: e.description,
          schema: { $ref: '#/definitions/Error' },
          ...(e.status === '429'
            ? { headers: { 'Retry-After': { type: 'integer', description: 'Seconds to wait' } } }
            : {}),
        },
      ]),
    ),
  };
}

/** `host`, `basePath` and `schemes` from the first base URL; none when there is no server (the serving host applies). */
function hostOf(server: string | undefined): Record<string, unknown> {
  if (server === undefined) return {};
  const url = new URL(server);
  const basePath = url.pathname.replace(/\/+$/, '') || '/';
  return { host: url.host, basePath, schemes: [url.protocol.replace(/:$/, '')] };
}
