import type { Network } from '../../kernel/network';
import { KnownHeads, type HeadObservation } from './known-heads';

/** A chain follower stand-in: the head it reports, and how many hold it fast. */
function follower(initial: HeadObservation | null) {
  const state = { seen: initial, retained: 0, retains: 0 };
  return {
    state,
    source: {
      head: (_network: Network) => state.seen,
      retain: (_network: Network) => {
        state.retained++;
        state.retains++;
        return () => {
          state.retained--;
        };
      },
    },
  };
}

describe('KnownHeads', () => {
  let now = 1_000_000;
  const clock = () => now;
  afterEach(() => {
    now = 1_000_000;
  });

  it('reads at the followed head while it is fresh, and not at all when it is unknown or stale', () => {
    const f = follower(null);
    const heads = new KnownHeads(f.source, { staleMs: 2_000, now: clock });
    expect(heads.head('testnet')).toBeNull();
    f.state.seen = { number: 5, checkedAt: now };
    expect(heads.head('testnet')).toBe(5);
    now += 2_001;
    expect(heads.head('testnet')).toBeNull();
    heads.close();
  });

  it('raises the head to an invoke’s block at once and keeps it until the follower reaches it', () => {
    const f = follower({ number: 5, checkedAt: now });
    const heads = new KnownHeads(f.source, { now: clock });
    heads.raise('testnet', 6);
    expect(heads.head('testnet')).toBe(6);
    // Another network is not raised.
    expect(heads.head('mainnet')).toBe(5);
    // A lower raise never lowers it.
    heads.raise('testnet', 4);
    expect(heads.head('testnet')).toBe(6);
    f.state.seen = { number: 7, checkedAt: now };
    expect(heads.head('testnet')).toBe(7);
    heads.close();
  });

  it('reads a contract no earlier than its own block, and keeps later reads there', () => {
    const f = follower({ number: 5, checkedAt: now });
    const heads = new KnownHeads(f.source, { now: clock });
    // Deployed in block 7, which the follower has not seen yet.
    expect(heads.headFor('testnet', 7)).toBe(7);
    // Any read after it, of any contract, is at that block or later.
    expect(heads.head('testnet')).toBe(7);
    expect(heads.headFor('testnet', 3)).toBe(7);
    expect(heads.headFor('testnet', null)).toBe(7);
    // Another network is not moved.
    expect(heads.head('mainnet')).toBe(5);
    // Unknown head: nothing to pin (a plain latest read).
    const unknown = new KnownHeads(follower(null).source, { now: clock });
    expect(unknown.headFor('testnet', 7)).toBeNull();
    heads.close();
    unknown.close();
  });

  it('drops a raised head the follower never reaches (the chain was reset) after its time to live', () => {
    const f = follower({ number: 5, checkedAt: now });
    const heads = new KnownHeads(f.source, { raisedTtlMs: 10_000, now: clock });
    heads.raise('testnet', 9);
    now += 5_000;
    f.state.seen = { number: 5, checkedAt: now };
    expect(heads.head('testnet')).toBe(9);
    now += 5_001;
    f.state.seen = { number: 5, checkedAt: now };
    expect(heads.head('testnet')).toBe(5);
    heads.close();
  });

  it('holds the follower fast once per network while reads come, and releases it on close', () => {
    const f = follower({ number: 1, checkedAt: now });
    const heads = new KnownHeads(f.source, { now: clock });
    heads.head('testnet');
    heads.head('testnet');
    heads.head('mainnet');
    expect(f.state).toMatchObject({ retained: 2, retains: 2 });
    heads.close();
    expect(f.state.retained).toBe(0);
  });

  it('releases the follower after a quiet spell', () => {
    jest.useFakeTimers();
    try {
      const f = follower({ number: 1, checkedAt: Date.now() });
      const heads = new KnownHeads(f.source, { holdMs: 1_000 });
      heads.head('testnet');
      expect(f.state.retained).toBe(1);
      jest.advanceTimersByTime(2_100);
      expect(f.state.retained).toBe(0);
      heads.head('testnet');
      expect(f.state).toMatchObject({ retained: 1, retains: 2 });
      heads.close();
    } finally {
      jest.useRealTimers();
    }
  });
});
