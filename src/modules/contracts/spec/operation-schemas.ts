import { CHAIN_IDS } from '../../../kernel/network';
import { paramSchema, positionalSchema, type Schema, type SpecDialect } from './abi-param-schema';
import type { ContractOperation, ContractSpecInput } from './contract-operations';

const WEI = { type: 'string', pattern: '^[0-9]+$|^0x[0-9a-fA-F]+$', example: '0' };

/** `nullable` in OpenAPI 3.0, its vendor-extension twin in Swagger 2.0. */
export function nullable(schema: Schema, dialect: SpecDialect): Schema {
  return dialect === 'openapi3' ? { ...schema, nullable: true } : { ...schema, 'x-nullable': true };
}

/** Whether the request body is required: only when there are arguments to send. */
export function bodyRequired(op: ContractOperation): boolean {
  return op.method.fragment.inputs.length > 0;
}

/** The JSON body `{args, value?, gasLimit?}` of one operation, typed from the function's inputs. */
export function requestSchema(op: ContractOperation, dialect: SpecDialect): Schema {
  const inputs = op.method.fragment.inputs;
  const properties: Record<string, Schema> = {
    args: positionalSchema(inputs, dialect, 'input', `Positional arguments of ${op.method.signature}`),
  };
  if (op.kind === 'invoke') {
    if (op.method.payable) {
      properties.value = { ...WEI, description: 'Native coin sent with the call, in wei (decimal or 0x hex string)' };
    }
    properties.gasLimit = {
      ...WEI,
      example: '100000',
      description: 'Gas limit of the transaction; estimated by the gateway when absent',
    };
  }
  return {
    type: 'object',
    description: `Request to ${op.kind} ${op.method.signature}`,
    properties,
    ...(inputs.length > 0 ? { required: ['args'] } : {}),
  };
}

/** The 201 body of one operation: `{result}` shaped by the outputs for a query, the transaction outcome for an invoke. */
export function responseSchema(op: ContractOperation, dialect: SpecDialect): Schema {
  if (op.kind === 'invoke') return invokeResultSchema(dialect);
  const outputs = op.method.fragment.outputs;
  let result: Schema;
  if (outputs.length === 0) {
    result =
      dialect === 'openapi3'
        ? // OpenAPI 3.0 gives `nullable` meaning only beside a `type`; the enum leaves null alone.
          { type: 'object', nullable: true, enum: [null], description: 'Always null: the function returns nothing' }
        : { 'x-nullable': true, description: 'Always null: the function returns nothing' };
  } else if (outputs.length === 1) {
    result = paramSchema(outputs[0], dialect, 'output');
  } else if (outputs.every((o) => o.name) && new Set(outputs.map((o) => o.name)).size === outputs.length) {
    result = {
      type: 'object',
      description: `Outputs of ${op.method.signature} by name`,
      properties: Object.fromEntries(outputs.map((o) => [o.name, paramSchema(o, dialect, 'output')])),
      required: outputs.map((o) => o.name),
    };
  } else {
    result = positionalSchema(outputs, dialect, 'output', `Outputs of ${op.method.signature} by position`);
  }
  return {
    type: 'object',
    description: `Result of ${op.method.signature}`,
    properties: { result },
    required: ['result'],
  };
}

/** `{txHash, blockNumber, gasUsed, status}` of an invoke (docs/api.md, "Gateway"); pending → blockNumber and gasUsed null. */
export function invokeResultSchema(dialect: SpecDialect): Schema {
  return {
    type: 'object',
    description: 'Outcome of the transaction; status pending when no receipt came within 60 s',
    properties: {
      transactionId: {
        type: 'string',
        format: 'uuid',
        description: 'Id of the transaction record (GET /api/devportal/transactions/{id})',
      },
      txHash: { type: 'string', pattern: '^0x[0-9a-fA-F]{64}$', description: 'Transaction hash' },
      blockNumber: nullable({ type: 'integer', format: 'int64', description: 'Block of the receipt' }, dialect),
      gasUsed: nullable({ type: 'string', pattern: '^[0-9]+$', description: 'Gas used, decimal' }, dialect),
      status: { type: 'string', enum: ['success', 'reverted', 'pending'] },
      revertReason: nullable(
        { type: 'string', description: 'Status reverted: the decoded reason or custom error, when it can be known' },
        dialect,
      ),
    },
    required: ['txHash', 'blockNumber', 'gasUsed', 'status'],
  };
}

/** The `Prefer` header of an invoke (docs/api.md, Gateway). */
export const PREFER_HEADER =
  '`respond-async`: answer 202 `{"transactionId", "status": "queued"}` once every check has passed, without ' +
  'waiting for the transaction to be sent or mined; follow it with GET /api/devportal/transactions/{id}.';

/** The 202 answer of an invoke accepted for later (`Prefer: respond-async`). */
export const ACCEPTED_DESCRIPTION = 'Accepted for later (Prefer: respond-async): sent and followed in the background';

/** The 202 body: the transaction record to follow. */
export const ACCEPTED_SCHEMA: Schema = {
  type: 'object',
  description: 'Accepted for later (Prefer: respond-async): the transaction record to follow',
  properties: {
    transactionId: {
      type: 'string',
      format: 'uuid',
      description: 'Id of the transaction record (GET /api/devportal/transactions/{id})',
    },
    status: { type: 'string', enum: ['queued'], description: 'Always queued: accepted, nothing signed yet' },
  },
  required: ['transactionId', 'status'],
};

/** The error body of every failure (docs/api.md, "Conventions"). */
/** The `x-block-number` header of a query's answer (docs/api.md, Gateway). */
export const BLOCK_HEADER =
  'Block the answer reflects (decimal); absent when the service did not know the head and read the node’s latest block.';

export const ERROR_SCHEMA: Schema = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'Stable UPPER_SNAKE error code', example: 'INVALID_ARGUMENT' },
        message: { type: 'string', description: 'Human-readable sentence' },
        details: { type: 'object', additionalProperties: true, description: 'Structured extra information' },
      },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
};

/** Error responses shared by every operation: status, component name, and what causes it. */
export const ERROR_RESPONSES: ReadonlyArray<{ status: string; name: string; description: string }> = [
  {
    status: '400',
    name: 'BadRequest',
    description: 'INVALID_ARGUMENT (details: index, name, type, reason), VALIDATION_FAILED, AMBIGUOUS_METHOD',
  },
  { status: '401', name: 'Unauthorized', description: 'INVALID_API_KEY: missing, unknown or revoked key' },
  { status: '403', name: 'Forbidden', description: 'FORBIDDEN, KEY_NOT_FOR_CONTRACT, INSUFFICIENT_SCOPE' },
  { status: '404', name: 'NotFound', description: 'NOT_FOUND (contract), METHOD_NOT_FOUND' },
  {
    status: '409',
    name: 'Conflict',
    description: 'CONTRACT_NOT_DEPLOYED, CONTRACT_NOT_REGISTERED, IDEMPOTENCY_IN_PROGRESS',
  },
  { status: '413', name: 'PayloadTooLarge', description: 'PAYLOAD_TOO_LARGE: body over 1 MiB' },
  {
    status: '415',
    name: 'UnsupportedMediaType',
    description:
      'UNSUPPORTED_MEDIA_TYPE: a Content-Encoding other than gzip, deflate or br, or a charset other than UTF-8',
  },
  {
    status: '422',
    name: 'Unprocessable',
    description:
      'EXECUTION_REVERTED (decoded reason or custom error), INSUFFICIENT_FUNDS, TRANSACTION_REFUSED (details.reason: the node’s words), IDEMPOTENCY_KEY_REUSED',
  },
  { status: '429', name: 'TooManyRequests', description: 'RATE_LIMITED, with a Retry-After header (seconds)' },
  { status: '500', name: 'Internal', description: 'INTERNAL' },
  { status: '502', name: 'BadGateway', description: 'UPSTREAM_RPC_ERROR' },
  { status: '503', name: 'Unavailable', description: 'NETWORK_UNAVAILABLE, SERVICE_UNAVAILABLE' },
];

/** The `info` object: title with the contract name, version 1.0.0, network and address in the description. */
export function infoOf(c: ContractSpecInput): Schema {
  const where = c.address ? `at ${c.address}` : 'not deployed yet';
  return {
    title: `${c.name} contract API`,
    version: '1.0.0',
    ...(c.servers[0] ? { contact: { name: 'Developer portal', url: trimBaseUrl(c.servers[0]) } } : {}),
    description: [
      `Gateway for contract ${c.name} (id ${c.id}) on ${c.network} (chain id ${CHAIN_IDS[c.network]}), ${where}.`,
      'Authenticate with an API key in the x-api-key header. View and pure functions are under /query (eth_call,',
      'scope read, no gas); the others under /invoke (a transaction from the owner wallet, scope write, irreversible).',
      'Overloaded functions are addressed by their full signature, URL-encoded.',
      'Integers are decimal strings (0x hex accepted in requests), addresses EIP-55, bytes 0x hex.',
    ].join(' '),
  };
}

/** One-paragraph description of an operation. */
export function operationDescription(op: ContractOperation): string {
  const m = op.method;
  const mutability = m.fragment.stateMutability;
  return op.kind === 'query'
    ? `Calls ${m.signature} (${mutability}) with eth_call: no transaction, no gas. Needs an API key with scope read.`
    : `Sends ${m.signature} (${mutability}) as a transaction from the contract owner's custodial wallet after a ` +
        'successful simulation, and waits up to 60 s for the receipt. Needs scope write. Irreversible once mined; ' +
        'use the Idempotency-Key header to retry safely.';
}

/** Base URL without trailing slashes, since every path starts with `/`. */
export function trimBaseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}
