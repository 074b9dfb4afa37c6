import { controlCharacterPath, refuseControlCharacters } from './text-input';

describe('control characters in text inputs', () => {
  it.each(['\u0000', 'a\u0001', '\u0007', '\u000b', '\u000c', '\u001b[31m', '\u007f', '\u0085', '\u009f'])(
    'finds %j',
    (text) => {
      expect(controlCharacterPath(text)).toBe('');
    },
  );

  it.each(['plain', 'tab\there', 'lines\r\nand\nmore', 'ünïcødé ✓', '\u00a0', ''])('lets %j through', (text) => {
    expect(controlCharacterPath(text)).toBeUndefined();
  });

  it('names where in nested arguments, keys included', () => {
    expect(controlCharacterPath({ q: 'ok', args: [1, { s: 'x\u0000' }] })).toBe('args.1.s');
    expect(controlCharacterPath({ input: { ['k\u0000']: 1 } })).toBe('input."k\\u0000"');
    expect(controlCharacterPath({ n: 1, b: true, d: new Date(0), z: null })).toBeUndefined();
  });

  it('throws VALIDATION_FAILED naming the field, not the value', () => {
    let error: unknown;
    try {
      refuseControlCharacters({ name: 'secret\u0000value' });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', details: { field: 'name', reason: 'control character' } });
    expect((error as Error).message).not.toMatch(/secret/);
  });
});
