import { setMaxListeners } from 'node:events';
import { createPubSub, type PubSub, type PubSubEventTarget } from '@graphql-yoga/subscription';
import type { Network } from '../../../kernel/network';
import { AppError } from '../../../kernel/errors/app-error';
import type { BlockSummary } from '../views/blocks.types';
import { boundedFeed } from './bounded-feed';

/** New blocks, by network. */
type Topics = { LIVE_BLOCKS: [Network, BlockSummary] };

/** A block summary queued for a subscriber that does not read: more ends its subscription. */
export const MAX_QUEUED_BLOCKS = 256;

/**
 * The live blocks of one app: its chain watchers publish every new block here and each liveBlocks
 * subscriber reads them from its own bounded queue. One per app, created with its services, so two
 * apps in one process never mix their chains.
 */
export class LiveFeed {
  private readonly pubSub: PubSub<Topics>;

  constructor() {
    // Hundreds of subscribers on one network are normal here, not the leak Node warns about past 10 listeners.
    const eventTarget = new EventTarget();
    setMaxListeners(0, eventTarget);
    this.pubSub = createPubSub<Topics>({ eventTarget: eventTarget as PubSubEventTarget<Topics> });
  }

  publish(network: Network, block: BlockSummary): void {
    this.pubSub.publish('LIVE_BLOCKS', network, block);
  }

  /** Every block published for `network` from now on, in order; `onEnd` runs once when the subscriber is gone. */
  subscribe(network: Network, onEnd?: () => void): AsyncIterableIterator<BlockSummary> {
    return boundedFeed(this.pubSub.subscribe('LIVE_BLOCKS', network), {
      max: MAX_QUEUED_BLOCKS,
      // graphql-ws reports an error of the event stream with its message and `extensions` only.
      overflowError: () =>
        Object.assign(
          new AppError(
            'RATE_LIMITED',
            `The subscriber fell more than ${MAX_QUEUED_BLOCKS} blocks behind and was dropped; subscribe again`,
          ),
          { extensions: { code: 'RATE_LIMITED' } },
        ),
      onEnd,
    });
  }
}
