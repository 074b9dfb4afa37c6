import { setMaxListeners } from 'node:events';
import { createPubSub, type PubSubEventTarget } from '@graphql-yoga/subscription';
import type { BlockSummary } from '../modules/explorer/explorer.types';

/** Topics pushed to GraphQL subscribers, with their payloads. */
export type Topics = {
  SERVER_TIME: [{ now: Date }];
  /** New blocks, by `<explorer instance>:<network>` (ExplorerService.liveTopic). */
  LIVE_BLOCKS: [string, BlockSummary];
};

/** Hundreds of subscribers on one topic are normal here, not the leak Node warns about past 10 listeners. */
const eventTarget = new EventTarget();
setMaxListeners(0, eventTarget);

/** The in-process event bus that feeds GraphQL subscriptions. */
export const pubSub = createPubSub<Topics>({ eventTarget: eventTarget as PubSubEventTarget<Topics> });
