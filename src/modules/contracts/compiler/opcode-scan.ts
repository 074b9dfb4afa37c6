/** PUSH1 (0x60) .. PUSH32 (0x7f) carry 1..32 bytes of immediate data that are not opcodes. */
const PUSH1 = 0x60;
const PUSH32 = 0x7f;

/** Bytecode hex (with or without 0x) as bytes; throws on odd length or non-hex characters. */
function bytesOf(bytecodeHex: string): Uint8Array {
  const hex = bytecodeHex.startsWith('0x') || bytecodeHex.startsWith('0X') ? bytecodeHex.slice(2) : bytecodeHex;
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) {
    throw new Error('bytecode must be an even-length hex string (unlinked library placeholders are not hex)');
  }
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

/**
 * Length of the code part of solc output: everything before the CBOR metadata trailer, whose
 * length is the big-endian uint16 in the last two bytes. Without a plausible trailer, all bytes.
 */
export function codeLengthWithoutMetadata(code: Uint8Array): number {
  if (code.length < 2) return code.length;
  const metadataLength = (code[code.length - 2]! << 8) | code[code.length - 1]!;
  const trailerLength = metadataLength + 2;
  // solc's CBOR map always starts with 0xa1..0xa5 (a map of 1..5 entries); anything else is not a trailer.
  const start = code.length - trailerLength;
  if (metadataLength === 0 || start < 0 || (code[start]! & 0xf0) !== 0xa0) return code.length;
  return start;
}

/**
 * Byte offset of the first instruction `opcode` in EVM bytecode, or -1. Walks instructions the
 * way the EVM does (PUSH immediates are skipped, not read as opcodes) and stops at the CBOR
 * metadata trailer. Data sections placed between code (rare in solc output) are walked as code.
 */
export function findOpcode(bytecodeHex: string, opcode: number): number {
  const code = bytesOf(bytecodeHex);
  const end = codeLengthWithoutMetadata(code);
  let pc = 0;
  while (pc < end) {
    const op = code[pc]!;
    if (op === opcode) return pc;
    pc += op >= PUSH1 && op <= PUSH32 ? op - PUSH1 + 2 : 1;
  }
  return -1;
}

/** The PUSH0 opcode (Shanghai); absent from code compiled for `paris`. */
export const PUSH0 = 0x5f;
