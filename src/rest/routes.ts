/** Who may call a route, as enforced by the service (docs/api.md refines the specification's "undeclared"). */
/** `dev-jwt-or-api-key`: the developer's token, or an API key (the service decides which key may). */
export type RouteAuth = 'public' | 'dev-jwt' | 'api-key' | 'dev-jwt-or-api-key';

export type RestArea = 'devportal' | 'explorer';

/** One REST route of docs/api.md and the GraphQL root field that serves it. */
export interface RestRoute {
  area: RestArea;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under the area's base path, with `{param}` placeholders as in docs/api.md. */
  path: string;
  /** `Query.name` or `Mutation.name`. */
  field: string;
  auth: RouteAuth;
  summary: string;
  /**
   * Served by `directOperation` (SOFA's operation for the field, compiled, without SOFA's HTTP
   * runtime) and matched by the HTTP server before express: the gateway's hot routes. Same paths,
   * variables, statuses and errors; SOFA still documents them.
   */
  direct?: true;
  /**
   * Response fields docs/api.md writes as optional, left out of the REST answer when null (omit-nulls.ts:
   * dotted paths, `[]` for each list item); GraphQL keeps them as null.
   */
  omitWhenNull?: string[];
  /** Response fields sent as headers instead of in the body (by field name); direct routes only. */
  asHeaders?: Record<string, ResponseHeader>;
  /**
   * A document the service keeps built (RestApiOptions.documents): answered with its bytes and its
   * `ETag`, 304 when `If-None-Match` names it. SOFA still documents the route and serves it when no
   * source is given.
   */
  servedDocument?: true;
}

/** A response header carrying a field of the operation's result (absent when the field is null). */
export interface ResponseHeader {
  name: string;
  description: string;
}

export const AREA_BASE: Record<RestArea, string> = {
  devportal: '/api/devportal',
  explorer: '/api/explorer',
};

/**
 * Root fields left without a REST route on purpose, each the GraphQL twin of a route:
 * `readContract` is `queryContract` as a query, for GraphQL clients' GET and caches (REST's read
 * is the query route). They do not shape the REST documents either (rest-api.ts `areaSchema`).
 */
export const GRAPHQL_ONLY_FIELDS: readonly string[] = ['Query.readContract'];

/**
 * Every REST route of the service. SOFA gets exactly these (its schema is filtered to these
 * fields), the served OpenAPI documents are built from them, and tests walk this table.
 */
export const REST_ROUTES: readonly RestRoute[] = [
  {
    area: 'devportal',
    method: 'POST',
    path: '/auth/eds/challenge',
    field: 'Mutation.edsChallenge',
    auth: 'public',
    summary: 'Start an EDS login: get a single-use nonce to sign',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/auth/eds/login',
    field: 'Mutation.edsLogin',
    auth: 'public',
    summary: 'Log in with an electronic digital signature; returns a developer token',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/auth/logout',
    field: 'Mutation.logout',
    auth: 'dev-jwt',
    summary: 'Log out: revoke every token of the caller issued up to now',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/auth/me',
    field: 'Query.me',
    auth: 'dev-jwt',
    summary: 'Profile of the current developer',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/developers/{id}',
    field: 'Query.developer',
    auth: 'dev-jwt',
    summary: 'Developer profile with wallets and projects (own id only)',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/projects',
    field: 'Mutation.createProject',
    auth: 'dev-jwt',
    summary: 'Create a project',
  },
  // Wallet and faucet
  {
    area: 'devportal',
    method: 'GET',
    path: '/wallets/{address}/balance',
    field: 'Query.walletBalance',
    auth: 'public',
    summary: 'Native coin balance of an address',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/faucet/drip',
    field: 'Mutation.faucetDrip',
    auth: 'dev-jwt',
    summary: 'Send 10 test coins to the caller’s custodial wallet (testnet, 5 per day)',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/developers/{id}/wallet-history',
    field: 'Query.walletHistory',
    // docs/api.md, "Wallet and faucet": `contractId?`, `method?`.
    omitWhenNull: ['items[].contractId', 'items[].method'],
    auth: 'dev-jwt',
    summary: 'Transactions of the caller’s custodial wallet, newest first',
  },
  // Contracts
  {
    area: 'devportal',
    method: 'POST',
    path: '/contracts/compile',
    field: 'Mutation.compileContract',
    auth: 'public',
    summary: 'Compile Solidity (solc 0.8.20, EVM paris)',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/contracts/deploy',
    field: 'Mutation.deployContract',
    auth: 'dev-jwt',
    summary: 'Compile and deploy (testnet at once, mainnet after approval)',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/contracts/{id}',
    field: 'Query.contract',
    auth: 'public',
    summary: 'A contract record',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/developers/{id}/contracts',
    field: 'Query.developerContracts',
    auth: 'dev-jwt',
    summary: 'The caller’s contracts',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/contracts/{id}/register-middleware',
    field: 'Mutation.registerContractMiddleware',
    auth: 'dev-jwt',
    summary: 'Register a deployed contract in the gateway',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/contracts/{id}/swagger',
    field: 'Query.contractSwagger',
    auth: 'public',
    summary: 'Swagger 2.0 description of a registered contract',
    servedDocument: true,
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/contracts/{id}/openapi.json',
    field: 'Query.contractOpenApi',
    auth: 'public',
    summary: 'OpenAPI 3.0.3 description of a contract’s gateway',
    servedDocument: true,
  },
  // Mainnet approval
  {
    area: 'devportal',
    method: 'GET',
    path: '/admin/contracts',
    field: 'Query.adminContracts',
    auth: 'dev-jwt',
    summary: 'Contracts awaiting review (administrators)',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/admin/contracts/{id}/approve',
    field: 'Mutation.approveContract',
    auth: 'dev-jwt',
    summary: 'Approve and deploy a mainnet contract (administrators)',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/admin/contracts/{id}/reject',
    field: 'Mutation.rejectContract',
    auth: 'dev-jwt',
    summary: 'Reject a mainnet contract (administrators)',
  },
  // API keys
  {
    area: 'devportal',
    method: 'POST',
    path: '/developers/{id}/api-keys',
    field: 'Mutation.createApiKey',
    auth: 'dev-jwt',
    summary: 'Issue an API key (the full key is shown once)',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/developers/{id}/api-keys',
    field: 'Query.apiKeys',
    auth: 'dev-jwt',
    summary: 'The caller’s API keys, without secrets',
  },
  {
    area: 'devportal',
    method: 'DELETE',
    path: '/api-keys/{keyId}',
    field: 'Mutation.revokeApiKey',
    auth: 'dev-jwt',
    summary: 'Revoke an API key',
  },
  {
    area: 'devportal',
    method: 'PATCH',
    path: '/api-keys/{keyId}',
    field: 'Mutation.updateApiKey',
    auth: 'dev-jwt',
    summary: 'Change an API key’s name and policies',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/api-keys/{keyId}/rotate',
    field: 'Mutation.rotateApiKey',
    auth: 'dev-jwt',
    summary: 'Rotate an API key’s secret (the new key is shown once)',
  },
  // Webhooks
  {
    area: 'devportal',
    method: 'POST',
    path: '/developers/{id}/webhooks',
    field: 'Mutation.createWebhook',
    auth: 'dev-jwt',
    // docs/api.md, Webhooks: the last attempt's state is left out until there is one.
    omitWhenNull: ['lastAttemptAt', 'lastResponseStatus', 'lastError'],
    summary: 'Create a webhook (its signing secret is shown once)',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/developers/{id}/webhooks',
    field: 'Query.webhooks',
    auth: 'dev-jwt',
    omitWhenNull: ['items[].lastAttemptAt', 'items[].lastResponseStatus', 'items[].lastError'],
    summary: 'The caller’s active webhooks, without secrets',
  },
  {
    area: 'devportal',
    method: 'DELETE',
    path: '/webhooks/{webhookId}',
    field: 'Mutation.deleteWebhook',
    auth: 'dev-jwt',
    omitWhenNull: ['lastAttemptAt', 'lastResponseStatus', 'lastError'],
    summary: 'Delete a webhook; its pending deliveries stop',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/webhooks/{webhookId}/deliveries',
    field: 'Query.webhookDeliveries',
    auth: 'dev-jwt',
    omitWhenNull: ['items[].lastError'],
    summary: 'Recent deliveries of a webhook, newest first',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/webhooks/{webhookId}/test',
    field: 'Mutation.testWebhook',
    auth: 'dev-jwt',
    omitWhenNull: ['lastError'],
    summary: 'Send a webhook.test message to a webhook (queued, signed and retried like any other)',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver',
    field: 'Mutation.redeliverWebhookDelivery',
    auth: 'dev-jwt',
    omitWhenNull: ['lastError'],
    summary: 'Send a delivery again (a settled one is queued anew; a pending one is due at once)',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/webhooks/{webhookId}/rotate-secret',
    field: 'Mutation.rotateWebhookSecret',
    auth: 'dev-jwt',
    summary: 'Give a webhook a new signing secret (shown once); the replaced one still signs for 24 h',
  },
  // Gateway
  {
    area: 'devportal',
    method: 'POST',
    path: '/contracts/{id}/query/{method}',
    field: 'Mutation.queryContract',
    auth: 'api-key',
    direct: true,
    asHeaders: {
      blockNumber: {
        name: 'x-block-number',
        description:
          'Block the answer reflects (decimal): the head this service knows, or a later block it named in an ' +
          'invoke answer. Absent when the head was not known and the call ran at the node’s latest block.',
      },
    },
    summary: 'Read a contract function (eth_call); scope read',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/contracts/{id}/invoke/{method}',
    field: 'Mutation.invokeContract',
    auth: 'api-key',
    direct: true,
    // docs/api.md, "Gateway": revertReason only on a reverted transaction.
    omitWhenNull: ['revertReason'],
    summary: 'Send a transaction to a contract function; scope write',
  },
  // Contract events
  {
    area: 'devportal',
    method: 'GET',
    path: '/contracts/{id}/events',
    field: 'Query.contractEvents',
    auth: 'dev-jwt-or-api-key',
    summary: 'Decoded events of a contract, oldest first (owner’s token, or an API key with scope read)',
    // docs/api.md "Hostile chain data": decoded and data only on an event over the decoding bounds.
    omitWhenNull: ['items[].decoded', 'items[].data'],
  },
  // Transactions
  {
    area: 'devportal',
    method: 'GET',
    path: '/transactions/{id}',
    field: 'Query.gatewayTransaction',
    auth: 'dev-jwt-or-api-key',
    summary: 'A transaction record (invoke, deploy, faucet drip): its developer’s token or the API key that sent it',
    // docs/api.md, "Transactions": a history entry's txHash and reason only when it has them.
    omitWhenNull: ['history[].txHash', 'history[].reason'],
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/developers/{id}/transactions',
    field: 'Query.developerTransactions',
    auth: 'dev-jwt',
    summary: 'The developer’s transaction records, newest first, by network, status, kind and contract',
    // docs/api.md, "Transactions": a history entry's txHash and reason only when it has them.
    omitWhenNull: ['items[].history[].txHash', 'items[].history[].reason'],
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/transactions/{id}/cancel',
    field: 'Mutation.cancelTransaction',
    auth: 'dev-jwt-or-api-key',
    summary: 'Cancel a queued transaction (no nonce used); pending, mined or ended ones are 409',
    // docs/api.md, "Transactions": a history entry's txHash and reason only when it has them.
    omitWhenNull: ['history[].txHash', 'history[].reason'],
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/transactions/{id}/retry',
    field: 'Mutation.retryTransaction',
    auth: 'dev-jwt-or-api-key',
    summary: 'Send a failed invoke (never mined) again under the same record; other statuses are 409',
    // docs/api.md, "Transactions": a history entry's txHash and reason only when it has them.
    omitWhenNull: ['history[].txHash', 'history[].reason'],
  },
  // Analytics
  {
    area: 'devportal',
    method: 'GET',
    path: '/developers/{id}/analytics',
    field: 'Query.analytics',
    auth: 'dev-jwt',
    summary: 'Gateway usage analytics',
  },
  // Explorer (public, read-only)
  {
    area: 'explorer',
    method: 'GET',
    path: '/live-blocks',
    field: 'Query.liveBlocks',
    auth: 'public',
    summary: 'Latest blocks of a network, newest first',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/network-status',
    field: 'Query.networkStatus',
    // docs/api.md, "Explorer": `rpc: {healthy, latencyMs, error?}`.
    omitWhenNull: ['rpc.error'],
    auth: 'public',
    summary: 'Last block, validators, average block time, RPC health and index progress',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/search',
    field: 'Query.search',
    auth: 'public',
    summary: 'Search blocks, transactions, addresses, portal contracts and verified assets',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/tx/{hash}',
    field: 'Query.transaction',
    // docs/api.md, "Explorer": `{found: false}`, or the transaction with `method?`.
    omitWhenNull: [
      'transaction.method',
      // docs/api.md, "Tokens": `batchIndex?`, `value?`, `tokenId?`.
      'transaction.tokenTransfers[].batchIndex',
      'transaction.tokenTransfers[].value',
      'transaction.tokenTransfers[].tokenId',
      'transaction',
    ],
    auth: 'public',
    summary: 'A transaction with its receipt and logs',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/block/{id}',
    field: 'Query.block',
    // docs/api.md, "Explorer": `{found, block?}`.
    omitWhenNull: ['block'],
    auth: 'public',
    summary: 'A block by number, hash or "latest"',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/address/{address}',
    field: 'Query.address',
    // docs/api.md, "Explorer": `info?` with `contract?`, activity items with `method?`.
    omitWhenNull: ['info.contract', 'info', 'activity[].method'],
    auth: 'public',
    summary: 'Balance, nonce, code and recent transactions of an address',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/address/{address}/contract',
    field: 'Query.addressContract',
    // docs/api.md, "Verification": `{found, contract?}`.
    omitWhenNull: ['contract'],
    auth: 'public',
    summary: 'The verified contract at an address: sources, settings, ABI and creation',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/verification/config',
    field: 'Query.verificationConfig',
    auth: 'public',
    summary: 'Compilers and EVM versions that verification accepts',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/verified-assets/recent',
    field: 'Query.recentVerifiedAssets',
    auth: 'public',
    summary: 'Recently verified mainnet token assets',
  },
  // Tokens (docs/api.md, "Tokens")
  {
    area: 'explorer',
    method: 'GET',
    path: '/address/{address}/token-transfers',
    field: 'Query.addressTokenTransfers',
    omitWhenNull: ['items[].batchIndex', 'items[].value', 'items[].tokenId'],
    auth: 'public',
    summary: 'Token transfers to or from an address, newest first',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/address/{address}/token-balances',
    field: 'Query.addressTokenBalances',
    omitWhenNull: ['items[].tokenId'],
    auth: 'public',
    summary: 'Tokens held by an address',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/tokens',
    field: 'Query.tokens',
    auth: 'public',
    summary: 'Tokens seen in the index, by type or name and symbol prefix',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/token/{address}',
    field: 'Query.token',
    omitWhenNull: ['token'],
    auth: 'public',
    summary: 'A token: metadata, supply, holder and transfer counts',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/token/{address}/holders',
    field: 'Query.tokenHolders',
    omitWhenNull: ['items[].tokenId'],
    auth: 'public',
    summary: 'Holders of a token, by value descending',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/token/{address}/transfers',
    field: 'Query.tokenTransfers',
    omitWhenNull: ['items[].batchIndex', 'items[].value', 'items[].tokenId'],
    auth: 'public',
    summary: 'Transfers of a token, newest first',
  },
];

/** the specification's `{id}` placeholders in the `:id` form of the router. */
export const toRouterPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** Status of a successful call: 201 for POST, 200 for GET, PATCH and DELETE (docs/api.md). */
export const successStatus = (r: RestRoute): 200 | 201 => (r.method === 'POST' ? 201 : 200);
