import { sourceHashOf, validateCompileInput } from './compile-input';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (e) {
    return e;
  }
  throw new Error('expected a refusal');
};

describe('validateCompileInput', () => {
  it('sorts files by name and parses contractName', () => {
    const valid = validateCompileInput({
      sources: { 'b.sol': 'B', 'A.sol': 'A', 'a/x.sol': 'X' },
      contractName: 'a/x.sol:X',
    });
    expect(valid.sources.map(([name]) => name)).toEqual(['A.sol', 'a/x.sol', 'b.sol']);
    expect(valid.contractName).toEqual({ file: 'a/x.sol', name: 'X' });
    expect(validateCompileInput({ sources: { 'A.sol': 'A' }, contractName: 'Token' }).contractName).toEqual({
      name: 'Token',
    });
  });

  it.each([
    ['a name not ending in .sol', { 'A.txt': 'x' }, /must end in \.sol/],
    ['an absolute name', { '/etc/A.sol': 'x' }, /must be relative/],
    ['a .. segment', { '../A.sol': 'x' }, /\. or \.\. segments/],
    ['a backslash', { 'a\\A.sol': 'x' }, /may use only/],
    [
      'an @ name that would shadow the library',
      { '@openzeppelin/contracts/token/ERC20/ERC20.sol': 'x' },
      /may use only/,
    ],
    ['an empty source', { 'A.sol': '  \n' }, /content is empty/],
    ['a non-string source', { 'A.sol': 42 }, /must be a string/],
    ['no files', {}, /at least one file/],
  ])('refuses %s with 400 VALIDATION_FAILED', (_label, sources, reason) => {
    const error = refusal(() => validateCompileInput({ sources: sources as Record<string, string> }));
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(JSON.stringify((error as { details: unknown }).details)).toMatch(reason);
  });

  it('bounds the number of files and the total size', () => {
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`F${i}.sol`, 'contract X {}']));
    expect(refusal(() => validateCompileInput({ sources: many }))).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/at most 50 files/),
    });
    expect(refusal(() => validateCompileInput({ sources: { 'A.sol': 'x'.repeat(101) } }, 100))).toMatchObject({
      code: 'VALIDATION_FAILED',
      message: expect.stringMatching(/101 bytes; at most 100/),
    });
  });

  it('refuses a contractName that is not an identifier', () => {
    expect(
      refusal(() => validateCompileInput({ sources: { 'A.sol': 'x' }, contractName: 'not a name' })),
    ).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { fields: [{ field: 'contractName', reasons: [expect.any(String)] }] },
    });
  });

  it('refuses sources that are not an object', () => {
    expect(
      refusal(() => validateCompileInput({ sources: 'contract A {}' as unknown as Record<string, string> })),
    ).toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });
});

describe('sourceHashOf', () => {
  it('depends on names and contents, not on the order files were given in', () => {
    const one = validateCompileInput({ sources: { 'A.sol': 'a', 'B.sol': 'b' } }).sources;
    const two = validateCompileInput({ sources: { 'B.sol': 'b', 'A.sol': 'a' } }).sources;
    expect(sourceHashOf(one)).toBe(sourceHashOf(two));
    expect(sourceHashOf(one)).toMatch(/^0x[0-9a-f]{64}$/);
    // JSON framing keeps file boundaries unambiguous.
    expect(sourceHashOf([['A.sol', 'ab']])).not.toBe(
      sourceHashOf([
        ['A.sol', 'a'],
        ['b.sol', ''],
      ]),
    );
  });
});
