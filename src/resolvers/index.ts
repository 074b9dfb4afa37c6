import type { ContainerType } from 'type-graphql';
import type { RequestLimit } from '../kernel/rate-limit';
import { AccountsResolver, LoginRateLimit } from '../modules/accounts/accounts.resolver';
import type { AccountService } from '../modules/accounts/accounts.service';
import type { AnalyticsService } from '../modules/analytics/analytics.service';
import type { ContractService } from '../modules/contracts/contracts.service';
import type { FaucetService } from '../modules/faucet/faucet.service';
import type { GatewayService } from '../modules/gateway/gateway.service';
import type { ApiKeyService } from '../modules/keys/keys.service';
import type { ProjectService } from '../modules/projects/projects.service';
import type { TransactionService } from '../modules/transactions/transactions.service';
import type { WalletService } from '../modules/wallets/wallets.service';
import type { WebhookService } from '../modules/webhooks/webhooks.service';
import { AnalyticsResolver } from '../modules/analytics/analytics.resolver';
import { ContractsResolver } from '../modules/contracts/contracts.resolver';
import { ContractEventsResolver, type ContractEventsService } from '../modules/events';
import { EXPLORER_RESOLVERS, explorerResolverInstances, type ExplorerService } from '../modules/explorer';
import { FaucetResolver } from '../modules/faucet/faucet.resolver';
import { VerificationResolver, type VerificationService } from '../modules/verification';
import { GatewayResolver } from '../modules/gateway/gateway.resolver';
import { KeysResolver } from '../modules/keys/keys.resolver';
import { ProjectsResolver } from '../modules/projects/projects.resolver';
import { ServerTimeResolver } from '../modules/system/server-time.resolver';
import { TransactionsResolver } from '../modules/transactions/transactions.resolver';
import { WalletsResolver } from '../modules/wallets/wallets.resolver';
import { WebhooksResolver } from '../modules/webhooks/webhooks.resolver';

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
  WebhooksResolver,
  AnalyticsResolver,
  ContractEventsResolver,
  TransactionsResolver,
  ...EXPLORER_RESOLVERS,
  VerificationResolver,
] as const;

/** The services the resolvers are built with. */
export interface ResolverServices {
  accounts: AccountService;
  analytics: AnalyticsService;
  contracts: ContractService;
  events: ContractEventsService;
  explorer: ExplorerService;
  faucet: FaucetService;
  gateway: GatewayService;
  keys: ApiKeyService;
  projects: ProjectService;
  transactions: TransactionService;
  wallets: WalletService;
  webhooks: WebhookService;
  verification: VerificationService;
  loginLimit: RequestLimit;
}

/** type-graphql's container: one instance of each resolver (and middleware), built with its services. */
export function resolverContainer(s: ResolverServices): ContainerType {
  const instances = new Map<unknown, object>([
    [GatewayResolver, new GatewayResolver(s.gateway)],
    [AccountsResolver, new AccountsResolver(s.accounts)],
    [LoginRateLimit, new LoginRateLimit(s.loginLimit)],
    [ProjectsResolver, new ProjectsResolver(s.projects)],
    [ServerTimeResolver, new ServerTimeResolver()],
    [WalletsResolver, new WalletsResolver(s.wallets)],
    [FaucetResolver, new FaucetResolver(s.faucet)],
    [ContractsResolver, new ContractsResolver(s.contracts)],
    [KeysResolver, new KeysResolver(s.keys)],
    [WebhooksResolver, new WebhooksResolver(s.webhooks)],
    [AnalyticsResolver, new AnalyticsResolver(s.analytics)],
    [ContractEventsResolver, new ContractEventsResolver(s.events)],
    [TransactionsResolver, new TransactionsResolver(s.transactions)],
    ...explorerResolverInstances(s.explorer),
    [VerificationResolver, new VerificationResolver(s.verification)],
  ]);
  return {
    get: (cls: unknown) => {
      const instance = instances.get(cls);
      if (!instance)
        throw new Error(`No instance of ${String((cls as { name?: string }).name)} in the resolver container`);
      return instance;
    },
  };
}
