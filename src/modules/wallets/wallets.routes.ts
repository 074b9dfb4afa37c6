import type { RestRoute } from '../../kernel/domain-manifest';

/** The wallets module's REST routes (docs/api.md, "Wallet and faucet"). */
export const WALLETS_ROUTES: readonly RestRoute[] = [
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
    method: 'GET',
    path: '/developers/{id}/wallet-history',
    field: 'Query.walletHistory',
    // docs/api.md, "Wallet and faucet": `contractId?`, `method?`.
    omitWhenNull: ['items[].contractId', 'items[].method'],
    auth: 'dev-jwt',
    summary: 'Transactions of the caller’s custodial wallet, newest first',
  },
];
