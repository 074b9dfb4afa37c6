import { prefersAsync } from './prefer';

describe('Prefer: respond-async', () => {
  it.each([
    ['respond-async', true],
    ['Respond-Async', true],
    ['wait=10, respond-async', true],
    ['respond-async; foo=bar', true],
    [['return=minimal', 'respond-async'], true],
    ['return=minimal', false],
    ['respond-asynchronously', false],
    ['', false],
    [undefined, false],
  ])('%j → %s', (header, expected) => {
    expect(prefersAsync(header)).toBe(expected);
  });
});
