/** What the accounts module offers the other modules (the only file they may import from it). */
import { domainManifest } from '../../kernel/domain-manifest';
import type { RequestLimit } from '../../kernel/rate-limit';
import { AccountsResolver, LoginRateLimit } from './accounts.resolver';
import { ACCOUNTS_ROUTES } from './accounts.routes';
import type { AccountService } from './accounts.service';
import { DeveloperEntity } from './developer.entity';
import { LoginChallengeEntity } from './login-challenge.entity';

export { DeveloperEntity } from './developer.entity';

/** The accounts domain: developers, EDS login and logout, profiles. */
export const ACCOUNTS_MODULE = domainManifest<{ accounts: AccountService; loginLimit: RequestLimit }>({
  name: 'accounts',
  entities: [DeveloperEntity, LoginChallengeEntity],
  resolvers: [{ type: AccountsResolver, build: (s) => new AccountsResolver(s.accounts) }],
  middleware: [{ type: LoginRateLimit, build: (s) => new LoginRateLimit(s.loginLimit) }],
  routes: ACCOUNTS_ROUTES,
});
