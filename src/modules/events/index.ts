/** What the events module offers the others: its service, resolver and the event item's shape. */
export { ContractEventsService, type ContractEventsSubscription } from './events.service';
export { ContractEventsResolver } from './events.resolver';
export type { ContractEventItem } from './events.types';
