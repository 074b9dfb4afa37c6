/** What the analytics module offers the other modules (the only file they may import from it). */
import { domainManifest } from '../../kernel/domain-manifest';
import { AnalyticsResolver } from './analytics.resolver';
import { ANALYTICS_ROUTES } from './analytics.routes';
import type { AnalyticsService } from './analytics.service';

export { UsageRecorder, type UsageKind } from './usage-recorder';

/** The analytics domain: the gateway's usage, recorded and rolled up. */
export const ANALYTICS_MODULE = domainManifest<{ analytics: AnalyticsService }>({
  name: 'analytics',
  entities: [],
  resolvers: [{ type: AnalyticsResolver, build: (s) => new AnalyticsResolver(s.analytics) }],
  routes: ANALYTICS_ROUTES,
});
