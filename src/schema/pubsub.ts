import { setMaxListeners } from 'node:events';
import { createPubSub, type PubSubEventTarget } from '@graphql-yoga/subscription';

/** Topics pushed to GraphQL subscribers, with their payloads. */
export type Topics = {
  SERVER_TIME: [{ now: Date }];
};

/** Hundreds of subscribers on one topic are normal here, not the leak Node warns about past 10 listeners. */
const eventTarget = new EventTarget();
setMaxListeners(0, eventTarget);

/** The in-process event bus that feeds GraphQL subscriptions. */
export const pubSub = createPubSub<Topics>({ eventTarget: eventTarget as PubSubEventTarget<Topics> });
