/** Every stable error code of docs/api.md, "Conventions" and the HTTP status it maps to: the one table of the service. */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  INVALID_ARGUMENT: 400,
  INVALID_NETWORK: 400,
  AMBIGUOUS_METHOD: 400,
  FAUCET_TESTNET_ONLY: 400,
  MAINNET_ONLY: 400,
  UNAUTHENTICATED: 401,
  INVALID_API_KEY: 401,
  EDS_INVALID: 401,
  FORBIDDEN: 403,
  KEY_NOT_FOR_CONTRACT: 403,
  KEY_POLICY_DENIED: 403,
  INSUFFICIENT_SCOPE: 403,
  NOT_FOUND: 404,
  METHOD_NOT_FOUND: 404,
  CONTRACT_NOT_DEPLOYED: 409,
  CONTRACT_NOT_REGISTERED: 409,
  INVALID_STATE: 409,
  IDEMPOTENCY_IN_PROGRESS: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  COMPILATION_FAILED: 422,
  IMPORT_NOT_ALLOWED: 422,
  CONTRACT_TOO_COMPLEX: 422,
  EXECUTION_REVERTED: 422,
  INSUFFICIENT_FUNDS: 422,
  TRANSACTION_REFUSED: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  SPEND_LIMIT_EXCEEDED: 422,
  RESULT_TOO_LARGE: 422,
  RATE_LIMITED: 429,
  FAUCET_LIMIT: 429,
  INTERNAL: 500,
  UPSTREAM_RPC_ERROR: 502,
  NETWORK_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
  FAUCET_EMPTY: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export function httpStatusOf(code: string): number {
  return (ERROR_STATUS as Record<string, number>)[code] ?? 500;
}

/**
 * The JSON-RPC error code of the door's answers (docs/api.md, "JSON-RPC door"), by the service's
 * code: -32001 for a key that does not verify, -32003 for a call the key may not make, -32602 for
 * parameters the key or the door refuses, -32005 over a limit, -32603 for the service's own faults.
 */
const JSON_RPC_CODES: Partial<Record<ErrorCode, number>> = {
  VALIDATION_FAILED: -32602,
  INVALID_ARGUMENT: -32602,
  INVALID_NETWORK: -32602,
  UNAUTHENTICATED: -32001,
  INVALID_API_KEY: -32001,
  FORBIDDEN: -32003,
  INSUFFICIENT_SCOPE: -32003,
  KEY_NOT_FOR_CONTRACT: -32602,
  KEY_POLICY_DENIED: -32003,
  SPEND_LIMIT_EXCEEDED: -32003,
  RATE_LIMITED: -32005,
  PAYLOAD_TOO_LARGE: -32005,
};

export function jsonRpcCodeOf(code: string): number {
  return (JSON_RPC_CODES as Record<string, number>)[code] ?? -32603;
}
