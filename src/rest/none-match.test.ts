import { noneMatchHolds } from './rest-api';

describe('If-None-Match', () => {
  const etag = '"abc"';
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['"x",W/"abc"', true],
    [' * ', true],
    ['"x"', false],
    ['"ab"', false],
    ['abc', false],
    ['', false],
  ])('%j names "abc": %s', (header, holds) => {
    expect(noneMatchHolds(header, etag)).toBe(holds);
  });
  it('holds nothing without the header', () => {
    expect(noneMatchHolds(undefined, etag)).toBe(false);
  });
});
