import { AppError } from '../../kernel/errors/app-error';
import { ReadCache } from './read-cache';

const TO = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const DATA = '0x70a08231000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266';

/** A node stand-in that answers each call when told to, and counts the calls it got. */
function slowNode() {
  const pending: Array<{ resolve: (raw: string) => void; reject: (e: unknown) => void }> = [];
  let calls = 0;
  return {
    load: () =>
      new Promise<string>((resolve, reject) => {
        calls++;
        pending.push({ resolve, reject });
      }),
    answer: (raw: string) => pending.shift()!.resolve(raw),
    fail: (e: unknown) => pending.shift()!.reject(e),
    calls: () => calls,
  };
}

const big = (n: number) => `0x${'ab'.repeat(n)}`;

describe('ReadCache', () => {
  it('serves N concurrent identical reads with one node call, then from the cache at that block', async () => {
    const cache = new ReadCache({ maxEntries: 100, maxBytes: 1 << 20 });
    const node = slowNode();
    const reads = Array.from({ length: 20 }, () => cache.read('testnet', 7, TO, DATA, node.load));
    expect(node.calls()).toBe(1);
    node.answer('0x01');
    expect(await Promise.all(reads)).toEqual(Array(20).fill('0x01'));
    expect(await cache.read('testnet', 7, TO, DATA, node.load)).toBe('0x01');
    expect(node.calls()).toBe(1);
    expect(cache.stats()).toMatchObject({ misses: 1, coalesced: 19, hits: 1, entries: 1 });
  });

  it('fails every joined caller with the leader’s typed error, keeps nothing, and calls again next time', async () => {
    const cache = new ReadCache({ maxEntries: 100, maxBytes: 1 << 20 });
    const node = slowNode();
    const reads = Array.from({ length: 5 }, () =>
      cache.read('testnet', 7, TO, DATA, node.load).then(
        () => 'answered',
        (e: unknown) => e,
      ),
    );
    node.fail(new AppError('UPSTREAM_RPC_ERROR', 'The testnet node did not answer (timeout)', { network: 'testnet' }));
    const outcomes = await Promise.all(reads);
    for (const e of outcomes) {
      expect(e).toBeInstanceOf(AppError);
      expect(e).toMatchObject({ code: 'UPSTREAM_RPC_ERROR', message: 'The testnet node did not answer (timeout)' });
    }
    // Each request gets its own error object.
    expect(new Set(outcomes).size).toBe(5);
    const again = cache.read('testnet', 7, TO, DATA, node.load);
    expect(node.calls()).toBe(2);
    node.answer('0x02');
    expect(await again).toBe('0x02');
    expect(cache.stats().entries).toBe(1);
  });

  it('keeps a revert for its block like an answer', async () => {
    const cache = new ReadCache({ maxEntries: 100, maxBytes: 1 << 20 });
    let calls = 0;
    const load = () => {
      calls++;
      return Promise.reject(new AppError('EXECUTION_REVERTED', 'Execution reverted: no', { reason: 'no' }));
    };
    for (let i = 0; i < 3; i++) {
      await expect(cache.read('testnet', 3, TO, DATA, load)).rejects.toMatchObject({
        code: 'EXECUTION_REVERTED',
        details: { reason: 'no' },
      });
    }
    expect(calls).toBe(1);
    await expect(cache.read('testnet', 4, TO, DATA, load)).rejects.toMatchObject({ code: 'EXECUTION_REVERTED' });
    expect(calls).toBe(2);
  });

  it('drops every answer of a network when a read at a later block comes, and never serves or keeps an older block', async () => {
    const cache = new ReadCache({ maxEntries: 100, maxBytes: 1 << 20 });
    let calls = 0;
    const load = (raw: string) => () => {
      calls++;
      return Promise.resolve(raw);
    };
    await cache.read('testnet', 10, TO, DATA, load('0x0a'));
    await cache.read('testnet', 10, TO, `${DATA}00`, load('0x0a'));
    await cache.read('mainnet', 10, TO, DATA, load('0x1a'));
    expect(cache.stats().entries).toBe(3);
    expect(await cache.read('testnet', 11, TO, DATA, load('0x0b'))).toBe('0x0b');
    // Block 10's testnet answers are gone; mainnet's are its own.
    expect(cache.stats().entries).toBe(2);
    expect(await cache.read('mainnet', 10, TO, DATA, load('0x1a'))).toBe('0x1a');
    expect(calls).toBe(4);
    // A read pinned at an older block goes to the node and is not kept.
    expect(await cache.read('testnet', 10, TO, DATA, load('0x0a'))).toBe('0x0a');
    expect(await cache.read('testnet', 10, TO, DATA, load('0x0a'))).toBe('0x0a');
    expect(calls).toBe(6);
    expect(await cache.read('testnet', 11, TO, DATA, load('0x0b'))).toBe('0x0b');
    expect(calls).toBe(6);
  });

  it('does not keep an answer whose block was overtaken while it was loading', async () => {
    const cache = new ReadCache({ maxEntries: 100, maxBytes: 1 << 20 });
    const node = slowNode();
    const old = cache.read('testnet', 5, TO, DATA, node.load);
    await cache.read('testnet', 6, TO, `${DATA}01`, () => Promise.resolve('0x06'));
    node.answer('0x05');
    expect(await old).toBe('0x05');
    expect(cache.stats().entries).toBe(1);
  });

  it('evicts the least recently used answer beyond the count bound', async () => {
    const cache = new ReadCache({ maxEntries: 3, maxBytes: 1 << 20 });
    let calls = 0;
    const load = () => {
      calls++;
      return Promise.resolve('0x01');
    };
    for (let i = 0; i < 4; i++) await cache.read('testnet', 1, TO, `${DATA}0${i}`, load);
    expect(cache.stats().entries).toBe(3);
    await cache.read('testnet', 1, TO, `${DATA}03`, load);
    expect(calls).toBe(4);
    await cache.read('testnet', 1, TO, `${DATA}00`, load);
    expect(calls).toBe(5);
  });

  it('evicts by size: the bytes held stay under the bound, and an answer larger than it is not kept', async () => {
    const maxBytes = 20_000;
    const cache = new ReadCache({ maxEntries: 1000, maxBytes });
    for (let i = 0; i < 20; i++) {
      await cache.read('testnet', 1, TO, `${DATA}${i.toString(16).padStart(2, '0')}`, () => Promise.resolve(big(1000)));
    }
    const { entries, bytes } = cache.stats();
    expect(bytes).toBeLessThanOrEqual(maxBytes);
    expect(entries).toBeGreaterThan(0);
    expect(entries).toBeLessThan(20);
    let calls = 0;
    const huge = () => {
      calls++;
      return Promise.resolve(big(20_000));
    };
    expect(await cache.read('testnet', 1, TO, DATA, huge)).toHaveLength(40_002);
    await cache.read('testnet', 1, TO, DATA, huge);
    expect(calls).toBe(2);
    expect(cache.stats().bytes).toBeLessThanOrEqual(maxBytes);
  });

  it('with caching off (0 entries) still coalesces calls in flight but keeps nothing', async () => {
    const cache = new ReadCache({ maxEntries: 0, maxBytes: 1 << 20 });
    const node = slowNode();
    const reads = [1, 2, 3].map(() => cache.read('testnet', 2, TO, DATA, node.load));
    node.answer('0x01');
    expect(await Promise.all(reads)).toEqual(['0x01', '0x01', '0x01']);
    const later = cache.read('testnet', 2, TO, DATA, node.load);
    node.answer('0x01');
    await later;
    expect(node.calls()).toBe(2);
    expect(cache.stats()).toMatchObject({ entries: 0, misses: 2, coalesced: 2, hits: 0 });
  });

  it('treats the address and call data without regard to letter case', async () => {
    const cache = new ReadCache({ maxEntries: 10, maxBytes: 1 << 20 });
    let calls = 0;
    const load = () => {
      calls++;
      return Promise.resolve('0x01');
    };
    await cache.read('testnet', 1, TO, DATA, load);
    await cache.read('testnet', 1, TO.toLowerCase(), DATA.toUpperCase().replace('0X', '0x'), load);
    expect(calls).toBe(1);
  });
});

describe('ReadCache.readLatest', () => {
  it('shares one latest call among identical reads in flight, keeps nothing, and fails them all alike', async () => {
    const cache = new ReadCache({ maxEntries: 100, maxBytes: 1 << 20 });
    const node = slowNode();
    const reads = Array.from({ length: 4 }, () => cache.readLatest('testnet', TO, DATA, node.load));
    expect(node.calls()).toBe(1);
    node.answer('0x07');
    expect(await Promise.all(reads)).toEqual(['0x07', '0x07', '0x07', '0x07']);
    const failing = Array.from({ length: 3 }, () =>
      cache.readLatest('testnet', TO, DATA, node.load).catch((e: unknown) => e),
    );
    expect(node.calls()).toBe(2);
    node.fail(new AppError('UPSTREAM_RPC_ERROR', 'The testnet node did not answer (timeout)'));
    for (const e of await Promise.all(failing)) expect(e).toMatchObject({ code: 'UPSTREAM_RPC_ERROR' });
    expect(cache.stats()).toMatchObject({ bypassed: 2, coalesced: 5, entries: 0 });
  });
});
