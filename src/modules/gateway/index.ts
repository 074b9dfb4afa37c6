/** What the gateway module offers the other modules (the only file they may import from it). */
import { domainManifest } from '../../kernel/domain-manifest';
import { GatewayResolver } from './gateway.resolver';
import { GATEWAY_ROUTES } from './gateway.routes';
import type { GatewayService } from './gateway.service';

export { GatewayService } from './gateway.service';

/** The gateway domain: reads and sends to registered contracts with an API key. */
export const GATEWAY_MODULE = domainManifest<{ gateway: GatewayService }>({
  name: 'gateway',
  entities: [],
  resolvers: [{ type: GatewayResolver, build: (s) => new GatewayResolver(s.gateway) }],
  routes: GATEWAY_ROUTES,
  // `readContract` is `queryContract` as a query, for GraphQL clients' GET and caches (REST's read
  // is the query route).
  graphqlOnlyFields: ['Query.readContract'],
});
