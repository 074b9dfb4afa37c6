import { codeLengthWithoutMetadata, findOpcode, PUSH0 } from './opcode-scan';

/** A solc-like CBOR trailer: a2 (map of 2) ... then its length in the last two bytes. */
const trailer = (body: string): string => {
  const bytes = body.length / 2;
  return body + bytes.toString(16).padStart(4, '0');
};

describe('findOpcode', () => {
  it('finds an opcode at its instruction offset', () => {
    expect(findOpcode('0x60015f00', PUSH0)).toBe(2);
    expect(findOpcode('5f', PUSH0)).toBe(0);
  });

  it('does not read PUSH1..PUSH32 immediate data as opcodes', () => {
    expect(findOpcode('0x605f00', PUSH0)).toBe(-1); // PUSH1 0x5f
    expect(findOpcode('0x7f' + '5f'.repeat(32) + '00', PUSH0)).toBe(-1); // PUSH32 of 0x5f bytes
    expect(findOpcode('0x615f5f5f', PUSH0)).toBe(3); // PUSH2 0x5f5f, then PUSH0
  });

  it('stops at the CBOR metadata trailer', () => {
    const metadata = trailer('a2' + '5f'.repeat(10));
    expect(findOpcode('0x6080604052' + metadata, PUSH0)).toBe(-1);
    expect(codeLengthWithoutMetadata(Uint8Array.from(Buffer.from('6080604052' + metadata, 'hex')))).toBe(5);
  });

  it('walks everything when the last two bytes are not a plausible trailer length', () => {
    expect(findOpcode('0x00005f0000ff', PUSH0)).toBe(2);
  });

  it('refuses what is not hex (e.g. unlinked library placeholders)', () => {
    expect(() => findOpcode('0x60__$abc$__', PUSH0)).toThrow(/hex/);
  });
});
