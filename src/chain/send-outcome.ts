/**
 * What a node's answer to eth_sendRawTransaction means for the transaction: the one place that reads
 * Besu's, GoQuorum's (geth's) and anvil's refusals. Sources: hyperledger/besu RpcErrorType.java and
 * TransactionInvalidReason.java; Consensys/quorum core/tx_pool.go, core/error.go and
 * permission/core/types (ErrNoPermissionForTxn).
 */

/** The JSON-RPC error object a node answered with. */
export interface NodeRpcError {
  code: number;
  message: string;
}

export type SendOutcome =
  /** The node did not take the transaction: its nonce is free again. */
  | { kind: 'refused'; reason: string; insufficientFunds: boolean }
  /** The nonce was taken by another transaction: sign again with the next nonce. */
  | { kind: 'nonce-taken'; reason: string }
  /** The node refused our request itself (credentials): nothing was sent. */
  | { kind: 'unauthorized'; reason: string }
  /** The node has it already: as good as accepted. */
  | { kind: 'already-known' }
  /** No answer, or an answer that does not say (timeout, reset, 5xx): track it by hash. */
  | { kind: 'unknown' };

/** Besu -32001 "Nonce too low"; geth/GoQuorum "nonce too low"; anvil "nonce too low". */
const NONCE_TAKEN = /nonce too low|nonce has already been used|already used nonce/i;
/** Besu -32000 "Known transaction"; geth/GoQuorum "already known"; anvil "transaction already imported". */
const ALREADY_KNOWN = /known transaction|already known|already imported/i;
/** Besu -32004 "Upfront cost exceeds account balance"; geth "insufficient funds for gas * price + value". */
const INSUFFICIENT_FUNDS = /insufficient funds|upfront cost exceeds account balance|not enough funds|lack of funds/i;
/** JSON-RPC errors that say the node failed, not that it judged the transaction. */
const NODE_FAILURE_CODES = new Set([-32603, -32700, -32600]);
/** Besu -40100 "Unauthorized" (JWT authentication). */
const UNAUTHORIZED_CODE = -40100;

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;
const MAX_REASON = 300;

/** The node's words, safe to show: no URLs (they may carry hosts or credentials), bounded length. */
export function safeReason(message: string): string {
  const cleaned = message.replace(URL_PATTERN, '').replace(/\s+/g, ' ').trim();
  return cleaned.length > MAX_REASON ? `${cleaned.slice(0, MAX_REASON)}…` : cleaned || 'refused by the node';
}

interface ErrorFields {
  code?: unknown;
  message?: unknown;
  error?: unknown;
  info?: { error?: unknown; responseStatus?: unknown };
}

function fields(e: unknown): ErrorFields {
  return typeof e === 'object' && e !== null ? (e as ErrorFields) : {};
}

/** The JSON-RPC error inside an ethers error (`info.error` or `error`), or the object itself. */
export function nodeRpcError(e: unknown, depth = 0): NodeRpcError | undefined {
  const f = fields(e);
  if (typeof f.code === 'number' && typeof f.message === 'string') return { code: f.code, message: f.message };
  if (depth > 3) return undefined;
  return nodeRpcError(f.info?.error, depth + 1) ?? nodeRpcError(f.error, depth + 1);
}

/** HTTP status of a transport answer that was not JSON-RPC (RpcHttpError, ethers SERVER_ERROR). */
function httpStatus(e: unknown): number | undefined {
  const status = fields(e).info?.responseStatus;
  if (typeof status !== 'string') return undefined;
  const code = Number.parseInt(status, 10);
  return Number.isFinite(code) ? code : undefined;
}

/** Classifies the failure of one eth_sendRawTransaction. */
export function classifySendError(e: unknown): SendOutcome {
  const status = httpStatus(e);
  if (status === 401 || status === 403) return { kind: 'unauthorized', reason: 'the node refused our credentials' };
  const rpc = nodeRpcError(e);
  if (rpc === undefined) return { kind: 'unknown' };
  if (rpc.code === UNAUTHORIZED_CODE) return { kind: 'unauthorized', reason: 'the node refused our credentials' };
  if (ALREADY_KNOWN.test(rpc.message)) return { kind: 'already-known' };
  if (NODE_FAILURE_CODES.has(rpc.code) || /timeout|timed out/i.test(rpc.message)) return { kind: 'unknown' };
  if (NONCE_TAKEN.test(rpc.message)) return { kind: 'nonce-taken', reason: safeReason(rpc.message) };
  return { kind: 'refused', reason: safeReason(rpc.message), insufficientFunds: INSUFFICIENT_FUNDS.test(rpc.message) };
}
