import { omitNulls } from './omit-nulls';

describe('omitNulls', () => {
  it('leaves out null fields at top level, nested and in each list item, and nothing else', () => {
    const answer = {
      found: true,
      info: { address: '0xabc', contract: null, nonce: 0 },
      activity: [{ txHash: '0x1', method: null }, { txHash: '0x2', method: { name: 'set' } }, 'not an object'],
      rpc: { healthy: true, error: null },
      kept: null,
    };
    omitNulls(answer, ['info.contract', 'info', 'activity[].method', 'rpc.error', 'missing.deeper', 'found.x']);
    expect(answer).toEqual({
      found: true,
      info: { address: '0xabc', nonce: 0 },
      activity: [{ txHash: '0x1' }, { txHash: '0x2', method: { name: 'set' } }, 'not an object'],
      rpc: { healthy: true },
      kept: null,
    });
  });

  it('drops a null parent and ignores the paths below it', () => {
    const answer: Record<string, unknown> = { found: false, transaction: null };
    omitNulls(answer, ['transaction.method', 'transaction']);
    expect(answer).toEqual({ found: false });
    // A list that is null, or not there, is left alone.
    const items: Record<string, unknown> = { items: null };
    omitNulls(items, ['items[].method']);
    expect(items).toEqual({ items: null });
  });
});
