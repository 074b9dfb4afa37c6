import type { Network } from '../../../kernel/network';
import { AppError } from '../../../kernel/errors/app-error';
import type { BlockSummary } from '../views/blocks.types';
import { boundedQueue, type BoundedQueue } from './bounded-feed';

/** A block summary queued for a subscriber that does not read: more ends its subscription. */
export const MAX_QUEUED_BLOCKS = 256;

/**
 * The live blocks of one app: its chain watchers publish every new block here and each liveBlocks
 * subscriber reads them from its own bounded queue. One per app, created with its services, so two
 * apps in one process never mix their chains. A block is handed to every queue of its network in
 * one synchronous pass (tens of thousands of subscribers: no event or promise per subscriber).
 */
export class LiveFeed {
  private readonly subscribers = new Map<Network, Set<BoundedQueue<BlockSummary>>>();

  publish(network: Network, block: BlockSummary): void {
    const queues = this.subscribers.get(network);
    if (!queues) return;
    // A queue that overflows leaves the set while it is walked: a Set skips it, as it should.
    for (const queue of queues) queue.push(block);
  }

  /** Every block published for `network` from now on, in order; `onEnd` runs once when the subscriber is gone. */
  subscribe(network: Network, onEnd?: () => void): AsyncIterableIterator<BlockSummary> {
    let queues = this.subscribers.get(network);
    if (!queues) {
      queues = new Set();
      this.subscribers.set(network, queues);
    }
    const set = queues;
    const queue: BoundedQueue<BlockSummary> = boundedQueue<BlockSummary>({
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
      onStop: () => {
        set.delete(queue);
        if (set.size === 0 && this.subscribers.get(network) === set) this.subscribers.delete(network);
      },
      onEnd,
    });
    set.add(queue);
    return queue;
  }
}
