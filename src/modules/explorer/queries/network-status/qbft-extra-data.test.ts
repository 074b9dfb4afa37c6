import { encodeRlp, getAddress, hexlify, randomBytes, toBeHex } from 'ethers';
import { decodeQbftExtraData, QbftExtraDataError, validatorsFromExtraData } from './qbft-extra-data';

const VANITY = `0x${'00'.repeat(31)}01`;
const V1 = '0x1111111111111111111111111111111111111111';
const V2 = '0xabcdefabcdefabcdefabcdefabcdefabcdefabcd';
const V3 = '0x00000000000000000000000000000000000000ff';
const seal = () => hexlify(randomBytes(65));

/** Builds extraData the way Besu's QbftExtraDataCodec writes it. */
function extraData(opts: {
  vanity?: string;
  validators?: string[];
  vote?: unknown[];
  round?: string;
  seals?: string[];
}): string {
  return encodeRlp([
    opts.vanity ?? VANITY,
    opts.validators ?? [V1, V2, V3],
    (opts.vote ?? []) as string[],
    opts.round ?? '0x',
    opts.seals ?? [],
  ]);
}

describe('decodeQbftExtraData', () => {
  it('decodes a genesis-style header: validators, no vote, round 0 as empty bytes, no seals', () => {
    const decoded = decodeQbftExtraData(extraData({}));
    expect(decoded).toEqual({
      vanity: VANITY,
      validators: [getAddress(V1), getAddress(V2), getAddress(V3)],
      vote: null,
      round: 0,
      seals: [],
    });
  });

  it('decodes a sealed block with an add vote, a round and committed seals', () => {
    const seals = [seal(), seal(), seal()];
    const decoded = decodeQbftExtraData(extraData({ vote: [V3, '0xff'], round: toBeHex(3), seals }));
    expect(decoded.vote).toEqual({ recipient: getAddress(V3), authorize: true });
    expect(decoded.round).toBe(3);
    expect(decoded.seals).toEqual(seals);
  });

  it('decodes drop votes written as empty bytes (Besu) or as the byte 0x00', () => {
    for (const kind of ['0x', '0x00']) {
      expect(decodeQbftExtraData(extraData({ vote: [V2, kind] })).vote).toEqual({
        recipient: getAddress(V2),
        authorize: false,
      });
    }
  });

  it('reads multi-byte rounds', () => {
    expect(decodeQbftExtraData(extraData({ round: '0x0100' })).round).toBe(256);
    expect(decodeQbftExtraData(extraData({ round: '0xffffffff' })).round).toBe(4294967295);
  });

  it('decodes empty validator lists (validators kept in a contract)', () => {
    const decoded = decodeQbftExtraData(extraData({ validators: [], seals: [seal()] }));
    expect(decoded.validators).toEqual([]);
    expect(validatorsFromExtraData(extraData({ validators: [] }))).toEqual([]);
  });

  it.each([
    ['empty extraData', '0x'],
    ['not hex', 'hello'],
    ['odd-length hex', '0x123'],
    ['a vanity-only (clique/dev chain) header', `0x${'00'.repeat(32)}`],
    ['truncated RLP', extraData({}).slice(0, -4)],
    ['trailing bytes after the RLP list', `${extraData({})}00`],
    ['an RLP string instead of a list', encodeRlp(VANITY)],
    ['four fields (IBFT 1 / no seals)', encodeRlp([VANITY, [V1], [], '0x'])],
    ['six fields', encodeRlp([VANITY, [V1], [], '0x', [], '0x'])],
    ['a short vanity', extraData({ vanity: '0x0102' })],
    ['a 19-byte validator', extraData({ validators: [`0x${'11'.repeat(19)}`] })],
    ['validators as bytes', encodeRlp([VANITY, V1, [], '0x', []])],
    ['a vote with one field', extraData({ vote: [V1] })],
    ['a vote with a bad type byte', extraData({ vote: [V1, '0x01'] })],
    ['a vote with a short recipient', extraData({ vote: ['0x1234', '0xff'] })],
    ['a round of 5 bytes', extraData({ round: '0x0102030405' })],
    ['a round given as a list', encodeRlp([VANITY, [V1], [], [], []])],
    ['a 64-byte seal', extraData({ seals: [hexlify(randomBytes(64))] })],
  ])('rejects %s', (_label, data) => {
    expect(() => decodeQbftExtraData(data)).toThrow(QbftExtraDataError);
    expect(validatorsFromExtraData(data)).toBeNull();
  });
});
