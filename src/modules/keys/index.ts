/** What the keys module offers the other modules (the only file they may import from it). */
import { domainManifest } from '../../kernel/domain-manifest';
import { ApiKeyEntity } from './api-key.entity';
import { KeysResolver } from './keys.resolver';
import { KEYS_ROUTES } from './keys.routes';
import type { ApiKeyService } from './keys.service';

export { ApiKeyService } from './keys.service';

/** The API keys domain: issue, revoke, rotate, and the keys' policies and spend caps. */
export const KEYS_MODULE = domainManifest<{ keys: ApiKeyService }>({
  name: 'keys',
  entities: [ApiKeyEntity],
  resolvers: [{ type: KeysResolver, build: (s) => new KeysResolver(s.keys) }],
  routes: KEYS_ROUTES,
});
