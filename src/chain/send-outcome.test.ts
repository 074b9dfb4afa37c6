import { JsonRpcProvider } from 'ethers';
import { RpcHttpError } from './rpc-transport';
import { classifySendError, safeReason } from './send-outcome';

/** ethers' own error for a node's JSON-RPC error answer to eth_sendRawTransaction, as the registry raises it. */
function ethersError(code: number, message: string): Error {
  const provider = new JsonRpcProvider('http://127.0.0.1:1', 1, { staticNetwork: true });
  const payload = { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: ['0x00'] } as const;
  const err = provider.getRpcError(payload, { id: 1, error: { code, message } });
  provider.destroy();
  return err;
}

describe('classifySendError', () => {
  const refused: Array<[string, number, string, boolean]> = [
    // hyperledger/besu RpcErrorType
    ['Besu GAS_PRICE_TOO_LOW', -32009, 'Gas price below configured minimum gas price', false],
    ['Besu GAS_PRICE_BELOW_CURRENT_BASE_FEE', -32009, 'Gas price below current base fee', false],
    ['Besu TRANSACTION_UPFRONT_COST_EXCEEDS_BALANCE', -32004, 'Upfront cost exceeds account balance', true],
    ['Besu TX_SENDER_NOT_AUTHORIZED', -32007, 'Sender account not authorized to send transactions', false],
    [
      'Besu NONCE_TOO_FAR_IN_FUTURE_FOR_SENDER',
      -32000,
      'Transaction nonce is too distant from current sender nonce',
      false,
    ],
    ['Besu NONCE_TOO_HIGH', -32006, 'Nonce too high', false],
    ['Besu INTRINSIC_GAS_EXCEEDS_LIMIT', -32003, 'Intrinsic gas exceeds gas limit', false],
    ['Besu EXCEEDS_BLOCK_GAS_LIMIT', -32005, 'Transaction gas limit exceeds block gas limit', false],
    ['Besu TX_FEECAP_EXCEEDED', -32000, 'Transaction fee cap exceeded', false],
    ['Besu WRONG_CHAIN_ID', -32000, 'Wrong chainId', false],
    ['Besu REPLAY_PROTECTED_SIGNATURE_REQUIRED', -32000, 'ChainId is required', false],
    ['Besu ETH_SEND_TX_REPLACEMENT_UNDERPRICED', -32000, 'Replacement transaction underpriced', false],
    [
      'Besu TX_POOL_DISABLED',
      -32002,
      'Transaction pool not enabled. (Either txpool explicitly disabled, or node not yet in sync).',
      false,
    ],
    ['Besu INVALID_TRANSACTION_SIGNATURE', -32002, 'Invalid signature', false],
    ['Besu LOWER_NONCE_INVALID_TRANSACTION_EXISTS', -32000, 'An invalid transaction with a lower nonce exists', false],
    [
      'Besu MAX_PRIORITY_FEE_PER_GAS_EXCEEDS_MAX_FEE_PER_GAS',
      -32000,
      'Max priority fee per gas exceeds max fee per gas',
      false,
    ],
    // Consensys/quorum core/tx_pool.go, core/error.go, permission types
    ['GoQuorum ErrInvalidGasPrice', -32000, 'Gas price not 0', false],
    ['GoQuorum ErrUnderpriced', -32000, 'transaction underpriced', false],
    ['GoQuorum ErrReplaceUnderpriced', -32000, 'replacement transaction underpriced', false],
    ['GoQuorum ErrInsufficientFunds', -32000, 'insufficient funds for gas * price + value', true],
    ['GoQuorum ErrIntrinsicGas', -32000, 'intrinsic gas too low', false],
    ['GoQuorum ErrGasLimit', -32000, 'exceeds block gas limit', false],
    ['GoQuorum ErrTxPoolOverflow', -32000, 'txpool is full', false],
    ['GoQuorum ErrInvalidSender', -32000, 'invalid sender', false],
    ['GoQuorum ErrNoPermissionForTxn', -32000, 'account does not have permission for the transaction', false],
    ['GoQuorum ErrEtherValueUnsupported', -32000, 'ether value is not supported for private transactions', false],
  ];
  it.each(refused)('%s → refused', (_name, code, message, funds) => {
    expect(classifySendError(ethersError(code, message))).toEqual({
      kind: 'refused',
      reason: message,
      insufficientFunds: funds,
    });
  });

  it.each([
    ['Besu NONCE_TOO_LOW', -32001, 'Nonce too low'],
    ['GoQuorum ErrNonceTooLow', -32000, 'nonce too low'],
  ])('%s → nonce taken', (_name, code, message) => {
    expect(classifySendError(ethersError(code, message))).toEqual({ kind: 'nonce-taken', reason: message });
  });

  it.each([
    ['Besu ETH_SEND_TX_ALREADY_KNOWN', -32000, 'Known transaction'],
    ['GoQuorum ErrAlreadyKnown', -32000, 'already known'],
    ['anvil', -32003, 'transaction already imported'],
  ])('%s → already known', (_name, code, message) => {
    expect(classifySendError(ethersError(code, message))).toEqual({ kind: 'already-known' });
  });

  it('Besu UNAUTHORIZED (-40100, HTTP 401) → unauthorized', () => {
    expect(classifySendError(ethersError(-40100, 'Unauthorized')).kind).toBe('unauthorized');
    expect(classifySendError(new RpcHttpError('bad response (HTTP 401)', 401)).kind).toBe('unauthorized');
  });

  it.each([
    ['Besu TIMEOUT_ERROR', ethersError(-32603, 'Timeout expired')],
    ['Besu INTERNAL_ERROR', ethersError(-32603, 'Internal error')],
    ['HTTP 503', new RpcHttpError('bad response (HTTP 503)', 503)],
    ['connection reset', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    ['undici headers timeout', Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' })],
  ])('%s → unknown outcome', (_name, err) => {
    expect(classifySendError(err)).toEqual({ kind: 'unknown' });
  });

  it('keeps no URL of the node in the reason', () => {
    expect(safeReason('refused, see https://user:pw@node.example/docs for more')).toBe('refused, see for more');
  });
});
