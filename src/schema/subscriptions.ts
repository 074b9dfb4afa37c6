import type { PubSub } from 'type-graphql';
import { FEEDS, type EventBus, type LiveBlock } from '../kernel/event-bus';

/** What the schema's subscriptions read: the bus's topics, and the feeds of FEEDS. */
export function schemaPubSub(
  bus: EventBus,
  feeds: {
    liveBlocks(network: unknown): AsyncIterable<LiveBlock>;
    /** `request` is what the field's topicId made of its arguments and context. */
    contractEvents(request: unknown): AsyncIterable<object>;
    /** `request` is the `tokenTransfers` field's arguments (docs/api.md, "Tokens"). */
    tokenTransfers(request: unknown): AsyncIterable<object>;
  },
): PubSub {
  return {
    publish: () => {
      throw new Error('Publish on the app event bus, not through the schema');
    },
    subscribe: (topic: string, id?: unknown) => {
      if (topic === FEEDS.liveBlocks) return feeds.liveBlocks(id);
      if (topic === FEEDS.contractEvents) return feeds.contractEvents(id);
      if (topic === FEEDS.tokenTransfers) return feeds.tokenTransfers(id);
      if (topic === 'SERVER_TIME') return bus.subscribe('SERVER_TIME');
      throw new Error(`No subscription topic ${topic}`);
    },
  };
}
