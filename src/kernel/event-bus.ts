import { setMaxListeners } from 'node:events';
import { createPubSub, type PubSubEventTarget } from '@graphql-yoga/subscription';

/** A block as pushed to subscribers: the explorer's BlockSummary view (typed by the explorer). */
export type LiveBlock = object;

/** Topics published on an app's event bus, with their payloads (live blocks have their own feed). */
export type Topics = {
  SERVER_TIME: [{ now: Date }];
};

/** The in-process event bus of one app: what its subscriptions are fed from. */
export type EventBus = ReturnType<typeof createPubSub<Topics>>;

export function createEventBus(): EventBus {
  // Hundreds of subscribers on one topic are normal here, not the leak Node warns about past 10 listeners.
  const eventTarget = new EventTarget();
  setMaxListeners(0, eventTarget);
  return createPubSub<Topics>({ eventTarget: eventTarget as PubSubEventTarget<Topics> });
}

/** Subscription topics that are not plain bus topics: each subscriber gets a feed of its own. */
export const FEEDS = {
  /** `liveBlocks(network)`: the explorer's bounded, gap-free feed of one network. */
  liveBlocks: 'FEED_LIVE_BLOCKS',
  /** `contractEvents(contractId, event, fromBlock)`: a feed read from the explorer index, per subscriber. */
  contractEvents: 'FEED_CONTRACT_EVENTS',
  /** `tokenTransfers(network, address, token, fromBlock)`: a feed read from the token index, per subscriber. */
  tokenTransfers: 'FEED_TOKEN_TRANSFERS',
} as const;
