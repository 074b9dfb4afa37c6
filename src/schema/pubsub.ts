import { setMaxListeners } from 'node:events';
import { createPubSub, type PubSubEventTarget } from '@graphql-yoga/subscription';
import type { PubSub } from 'type-graphql';
import type { BlockSummary } from '../modules/explorer/explorer.types';

/** Topics published on an app's event bus, with their payloads. */
export type Topics = {
  SERVER_TIME: [{ now: Date }];
  /** New blocks, by `<explorer instance>:<network>` (ExplorerService.liveTopic). */
  LIVE_BLOCKS: [string, BlockSummary];
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
} as const;

/** What the schema's subscriptions read: the bus's topics, and the feeds of FEEDS. */
export function schemaPubSub(
  bus: EventBus,
  feeds: { liveBlocks(network: unknown): AsyncIterable<BlockSummary> },
): PubSub {
  return {
    publish: () => {
      throw new Error('Publish on the app event bus, not through the schema');
    },
    subscribe: (topic: string, id?: unknown) => {
      if (topic === FEEDS.liveBlocks) return feeds.liveBlocks(id);
      if (topic === 'SERVER_TIME') return bus.subscribe('SERVER_TIME');
      throw new Error(`No subscription topic ${topic}`);
    },
  };
}
