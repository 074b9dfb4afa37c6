import type { BlockSummary } from '../views/blocks.types';
import { LiveFeed, MAX_QUEUED_BLOCKS } from './live-feed';

const block = (number: number): BlockSummary => ({
  number,
  hash: `0x${number.toString(16).padStart(64, '0')}`,
  parentHash: `0x${'0'.repeat(64)}`,
  timestamp: 1_700_000_000 + number,
  proposer: '0x0000000000000000000000000000000000000001',
  transactionCount: 0,
  gasUsed: '0',
  gasLimit: '30000000',
});

/** Lets the pubsub deliver what was published. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('LiveFeed', () => {
  it('delivers a network’s blocks in order to its subscribers only, and never to another feed', async () => {
    const feed = new LiveFeed();
    const other = new LiveFeed();
    const testnet = feed.subscribe('testnet');
    const mainnet = feed.subscribe('mainnet');
    const elsewhere = other.subscribe('testnet');
    await settle();
    for (const n of [1, 2, 3]) feed.publish('testnet', block(n));
    feed.publish('mainnet', block(10));
    other.publish('testnet', block(99));

    expect([(await testnet.next()).value.number, (await testnet.next()).value.number]).toEqual([1, 2]);
    expect((await testnet.next()).value.number).toBe(3);
    expect((await mainnet.next()).value.number).toBe(10);
    expect((await elsewhere.next()).value.number).toBe(99);
    await Promise.all([testnet.return!(), mainnet.return!(), elsewhere.return!()]);
  });

  it('ends a subscriber that falls too far behind with RATE_LIMITED, and tells onEnd once', async () => {
    const feed = new LiveFeed();
    const onEnd = jest.fn();
    const slow = feed.subscribe('testnet', onEnd);
    await settle();
    for (let n = 0; n <= MAX_QUEUED_BLOCKS + 1; n++) feed.publish('testnet', block(n));
    await settle();
    await expect(
      (async () => {
        for (;;) await slow.next();
      })(),
    ).rejects.toMatchObject({ code: 'RATE_LIMITED', extensions: { code: 'RATE_LIMITED' } });
    expect(onEnd).toHaveBeenCalledTimes(1);
  });
});
