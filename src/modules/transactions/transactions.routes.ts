import type { RestRoute } from '../../kernel/domain-manifest';

/** The transactions module's REST routes (docs/api.md, "Transactions"). */
export const TRANSACTIONS_ROUTES: readonly RestRoute[] = [
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
    summary:
      'Cancel a queued transaction (no nonce used) or replace a pending one at its nonce; mined or ended ones are 409',
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
];
