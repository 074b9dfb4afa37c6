import type { DataSource } from 'typeorm';
import type { ChainRegistry } from '../chain/chain-registry';
import type { AppConfig } from '../config';
import type { Logger } from '../logger';
import { AccessTokens } from '../modules/accounts/access-token';
import { AccountService } from '../modules/accounts/accounts.service';
import { DeveloperAuth } from '../modules/accounts/developer-auth';
import type { TrustStore } from '../modules/accounts/eds/trust-store';
import { ExplorerService } from '../modules/explorer/explorer.service';
import { ProjectService } from '../modules/projects/project.service';
import { WalletService } from '../modules/wallets/wallet.service';

/** The domain services of one process, handed to resolvers through the request context. */
export interface Services {
  auth: DeveloperAuth;
  accounts: AccountService;
  projects: ProjectService;
  wallets: WalletService;
  chains: ChainRegistry;
  explorer: ExplorerService;
}

export function createServices(deps: {
  ds: DataSource;
  config: AppConfig;
  chains: ChainRegistry;
  trust: TrustStore;
  logger: Logger;
}): Services {
  const tokens = new AccessTokens(deps.config.jwtSecret);
  const auth = new DeveloperAuth(deps.ds, tokens);
  const wallets = new WalletService(deps.ds, deps.config.walletEncryptionKey);
  const projects = new ProjectService(deps.ds, auth);
  const accounts = new AccountService(deps.ds, tokens, deps.trust, wallets, projects, auth, deps.logger);
  const explorer = new ExplorerService(
    deps.ds,
    deps.chains,
    { indexerEnabled: deps.config.indexer.enabled, indexerStartBlock: deps.config.indexer.startBlock },
    deps.logger,
  );
  return { auth, accounts, projects, wallets, chains: deps.chains, explorer };
}
