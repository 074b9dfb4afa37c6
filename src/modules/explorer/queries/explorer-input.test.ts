import { AppError } from '../../../kernel/errors/app-error';
import { parseAddress } from '../../../kernel/address';
import { boundedInt, LIMITS, parseBlockId, parseHash, parseSearchQuery } from './explorer-input';

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as AppError).code;
  }
  return 'ok';
};

describe('explorer input', () => {
  it('bounds limits and scans, with defaults', () => {
    expect(boundedInt('limit', undefined, LIMITS.liveBlocks)).toBe(10);
    expect(boundedInt('limit', null, LIMITS.activity)).toBe(25);
    expect(boundedInt('scan', 5000, LIMITS.scan)).toBe(5000);
    for (const bad of [0, 101, -1, 1.5])
      expect(code(() => boundedInt('limit', bad, LIMITS.liveBlocks))).toBe('VALIDATION_FAILED');
    expect(code(() => boundedInt('scan', 5001, LIMITS.scan))).toBe('VALIDATION_FAILED');
  });

  it('accepts addresses in any case and returns them checksummed', () => {
    const checksummed = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    for (const v of [checksummed, checksummed.toLowerCase(), `0x${checksummed.slice(2).toUpperCase()}`]) {
      expect(parseAddress(v, 'address')).toBe(checksummed);
    }
    for (const bad of [
      '0x123',
      'f39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      `${checksummed}00`,
      '0xzz9Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    ]) {
      expect(code(() => parseAddress(bad, 'address'))).toBe('VALIDATION_FAILED');
    }
  });

  it('parses hashes and block ids', () => {
    const hash = `0x${'AB'.repeat(32)}`;
    expect(parseHash('hash', hash)).toBe(hash.toLowerCase());
    expect(code(() => parseHash('hash', '0x1234'))).toBe('VALIDATION_FAILED');
    expect(parseBlockId('12')).toEqual({ kind: 'number', number: 12 });
    expect(parseBlockId('LATEST')).toEqual({ kind: 'latest' });
    expect(parseBlockId(hash)).toEqual({ kind: 'hash', hash: hash.toLowerCase() });
    for (const bad of ['-1', '1.5', '0x12', 'abc', '99999999999999999999'])
      expect(code(() => parseBlockId(bad))).toBe('VALIDATION_FAILED');
  });

  it('classifies search text', () => {
    expect(parseSearchQuery(' 42 ')).toEqual({ kind: 'number', number: 42 });
    expect(parseSearchQuery(`0x${'ab'.repeat(32)}`)).toEqual({ kind: 'hash', hash: `0x${'ab'.repeat(32)}` });
    expect(parseSearchQuery(`0x${'ab'.repeat(20)}`).kind).toBe('address');
    expect(parseSearchQuery('Tok')).toEqual({ kind: 'text', text: 'Tok' });
    expect(code(() => parseSearchQuery('   '))).toBe('VALIDATION_FAILED');
    expect(code(() => parseSearchQuery('x'.repeat(201)))).toBe('VALIDATION_FAILED');
  });
});
