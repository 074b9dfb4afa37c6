/** What the faucet module offers (docs/api.md, "Wallet and faucet"). */
import { domainManifest } from '../../kernel/domain-manifest';
import { FaucetDripEntity } from './faucet-drip.entity';
import { FaucetResolver } from './faucet.resolver';
import { FAUCET_ROUTES } from './faucet.routes';
import type { FaucetService } from './faucet.service';

/** The faucet domain: test coins, five drips a day. */
export const FAUCET_MODULE = domainManifest<{ faucet: FaucetService }>({
  name: 'faucet',
  entities: [FaucetDripEntity],
  resolvers: [{ type: FaucetResolver, build: (s) => new FaucetResolver(s.faucet) }],
  routes: FAUCET_ROUTES,
});
