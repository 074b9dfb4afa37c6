import { sourceShapeKey, stripCommentsAndWhitespace } from './source-shape';

describe('source shape', () => {
  it('drops comments and layout but keeps string literals', () => {
    expect(stripCommentsAndWhitespace('contract  C { // x\n  /* y */ string s = "a  // b";\n}')).toBe(
      'contract C { string s = "a  // b"; }',
    );
    expect(stripCommentsAndWhitespace("string s = 'it\\'s /* no */';")).toBe("string s = 'it\\'s /* no */';");
  });

  it('gives one key to sources that differ only in comments, whitespace or file names', () => {
    const a = sourceShapeKey([['A.sol', 'contract C { uint constant A1 = A0 + A0; }']]);
    expect(
      sourceShapeKey([['B.sol', '// one byte changed\ncontract C {\n  uint constant A1 = A0 + A0; /* z */ }']]),
    ).toBe(a);
    expect(sourceShapeKey([['A.sol', 'contract C { uint constant A1 = A0 * A0; }']])).not.toBe(a);
  });
});
