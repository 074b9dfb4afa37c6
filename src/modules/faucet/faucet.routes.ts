import type { RestRoute } from '../../kernel/domain-manifest';

/** The faucet module's REST routes (docs/api.md, "Wallet and faucet"). */
export const FAUCET_ROUTES: readonly RestRoute[] = [
  {
    area: 'devportal',
    method: 'POST',
    path: '/faucet/drip',
    field: 'Mutation.faucetDrip',
    auth: 'dev-jwt',
    summary: 'Send 10 test coins to the caller’s custodial wallet (testnet, 5 per day)',
  },
];
