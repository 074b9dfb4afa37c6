import { AccountsResolver } from '../modules/accounts/accounts.resolver';
import { AnalyticsResolver } from '../modules/analytics/analytics.resolver';
import { ContractsResolver } from '../modules/contracts/contracts.resolver';
import { EXPLORER_RESOLVERS } from '../modules/explorer';
import { FaucetResolver } from '../modules/faucet/faucet.resolver';
import { GatewayResolver } from '../modules/gateway/gateway.resolver';
import { KeysResolver } from '../modules/keys/keys.resolver';
import { ProjectsResolver } from '../modules/projects/projects.resolver';
import { ServerTimeResolver } from '../modules/system/server-time.resolver';
import { WalletsResolver } from '../modules/wallets/wallets.resolver';

/** Every resolver of the schema; each lives beside its domain in src/modules. */
// GatewayResolver first: SOFA registers routes in schema order and the router tries them in that
// order, so the gateway's hot routes are matched first.
export const RESOLVERS = [
  GatewayResolver,
  AccountsResolver,
  ProjectsResolver,
  ServerTimeResolver,
  WalletsResolver,
  FaucetResolver,
  ContractsResolver,
  KeysResolver,
  AnalyticsResolver,
  ...EXPLORER_RESOLVERS,
] as const;
