/** What the system module offers: the server time subscription (docs/api.md, "GraphQL specifics"). */
import { domainManifest } from '../../kernel/domain-manifest';
import { ServerTimeResolver } from './server-time.resolver';

/** The system domain: what the service says about itself. */
export const SYSTEM_MODULE = domainManifest({
  name: 'system',
  entities: [],
  resolvers: [{ type: ServerTimeResolver, build: () => new ServerTimeResolver() }],
  routes: [],
});
