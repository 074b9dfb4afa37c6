/** What the events module offers the others: its service, the event item's shape and its manifest. */
import { domainManifest } from '../../kernel/domain-manifest';
import { ContractEventsResolver } from './events.resolver';
import { EVENTS_ROUTES } from './events.routes';
import type { ContractEventsService } from './events.service';

export { ContractEventsService, type ContractEventsSubscription } from './events.service';
export type { ContractEventItem } from './events.types';

/** The contract events domain: a contract's decoded events, listed and followed. */
export const EVENTS_MODULE = domainManifest<{ events: ContractEventsService }>({
  name: 'events',
  entities: [],
  resolvers: [{ type: ContractEventsResolver, build: (s) => new ContractEventsResolver(s.events) }],
  routes: EVENTS_ROUTES,
});
