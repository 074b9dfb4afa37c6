/**
 * The methods of the JSON-RPC door (docs/api.md, "JSON-RPC door"): what scope `read` allows, what
 * `write` adds, and the limits of one call. Every other method is refused with -32601.
 */
export const READ_METHODS: ReadonlySet<string> = new Set([
  'eth_chainId',
  'net_version',
  'net_listening',
  'web3_clientVersion',
  'eth_syncing',
  'eth_blockNumber',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionReceipt',
  'eth_getBlockReceipts',
  'eth_call',
  'eth_estimateGas',
  'eth_getLogs',
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getTransactionCount',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'qbft_getValidatorsByBlockNumber',
]);

/** Methods that need scope `write`. */
export const WRITE_METHODS: ReadonlySet<string> = new Set(['eth_sendRawTransaction']);

/** Methods served only over WebSocket (over HTTP they do not exist, as on geth and Besu). */
export const SUBSCRIPTION_METHODS: ReadonlySet<string> = new Set(['eth_subscribe', 'eth_unsubscribe']);

/** Methods whose target a key restricted to contracts must own (docs/api.md, "JSON-RPC door"). */
export const CONTRACT_BOUND_METHODS: ReadonlySet<string> = new Set([
  'eth_call',
  'eth_estimateGas',
  'eth_sendRawTransaction',
  'eth_getLogs',
]);

export const MAX_BATCH = 100;
export const MAX_LOG_BLOCKS = 5000;
export const MAX_LOGS = 10_000;
/** Node messages quoted in errors are cut to this many characters (docs/api.md, "Hostile chain data"). */
export const MAX_MESSAGE = 4096;

/** geth's words for a method it does not serve. */
export const methodNotFound = (method: string) => `the method ${method} does not exist/is not available`;

export const MAINNET_SEND_REFUSED = "mainnet deployments go through the portal's approval";
