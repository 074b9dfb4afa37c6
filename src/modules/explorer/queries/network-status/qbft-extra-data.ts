import { decodeRlp, getAddress, type RlpStructuredData } from 'ethers';

/** A validator vote carried by a QBFT block: add (authorize) or remove a validator. */
export interface QbftVote {
  recipient: string;
  authorize: boolean;
}

/** The fields of a QBFT header's extraData (Besu's QbftExtraDataCodec). */
export interface QbftExtraData {
  /** 32 bytes of free data, 0x hex. */
  vanity: string;
  /** EIP-55 addresses; empty when validators come from a contract (contract mode). */
  validators: string[];
  vote: QbftVote | null;
  round: number;
  /** Committed seals, 65-byte signatures as 0x hex. */
  seals: string[];
}

export class QbftExtraDataError extends Error {
  constructor(reason: string) {
    super(`Not QBFT extraData: ${reason}`);
    this.name = 'QbftExtraDataError';
  }
}

const VOTE_ADD = '0xff';
/** Besu writes the drop vote as the single byte 0x00; other RLP writers encode 0 as empty bytes. */
const VOTE_DROP = new Set(['0x00', '0x']);

const byteLength = (hex: string) => (hex.length - 2) / 2;

function bytesOf(item: RlpStructuredData, what: string, length?: number): string {
  if (typeof item !== 'string') throw new QbftExtraDataError(`${what} is a list, expected bytes`);
  if (length !== undefined && byteLength(item) !== length) {
    throw new QbftExtraDataError(`${what} has ${byteLength(item)} bytes, expected ${length}`);
  }
  return item;
}

function listOf(item: RlpStructuredData, what: string): RlpStructuredData[] {
  if (!Array.isArray(item)) throw new QbftExtraDataError(`${what} is bytes, expected a list`);
  return item;
}

/**
 * Decodes QBFT extraData: RLP([vanity (32 bytes), [validator...], vote ([] or [recipient, 0xff|0x00]),
 * round (integer scalar, 0 as empty bytes), [seal...]]). Throws QbftExtraDataError on anything else.
 */
export function decodeQbftExtraData(extraData: string): QbftExtraData {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(extraData)) throw new QbftExtraDataError('not hex bytes');
  if (extraData.length <= 2) throw new QbftExtraDataError('empty');
  let decoded: RlpStructuredData;
  try {
    decoded = decodeRlp(extraData);
  } catch {
    throw new QbftExtraDataError('not valid RLP');
  }
  const fields = listOf(decoded, 'extraData');
  if (fields.length !== 5) throw new QbftExtraDataError(`has ${fields.length} fields, expected 5`);
  const [vanityItem, validatorsItem, voteItem, roundItem, sealsItem] = fields as [
    RlpStructuredData,
    RlpStructuredData,
    RlpStructuredData,
    RlpStructuredData,
    RlpStructuredData,
  ];

  const vanity = bytesOf(vanityItem, 'vanity', 32);
  const validators = listOf(validatorsItem, 'validators').map((v, i) => getAddress(bytesOf(v, `validator ${i}`, 20)));

  const voteFields = listOf(voteItem, 'vote');
  let vote: QbftVote | null = null;
  if (voteFields.length === 2) {
    const recipient = getAddress(bytesOf(voteFields[0]!, 'vote recipient', 20));
    const kind = bytesOf(voteFields[1]!, 'vote type').toLowerCase();
    if (kind !== VOTE_ADD && !VOTE_DROP.has(kind))
      throw new QbftExtraDataError(`vote type ${kind} is not 0xff or 0x00`);
    vote = { recipient, authorize: kind === VOTE_ADD };
  } else if (voteFields.length !== 0) {
    throw new QbftExtraDataError(`vote has ${voteFields.length} fields, expected 0 or 2`);
  }

  const roundBytes = bytesOf(roundItem, 'round');
  if (byteLength(roundBytes) > 4) throw new QbftExtraDataError('round is longer than 4 bytes');
  const round = byteLength(roundBytes) === 0 ? 0 : Number.parseInt(roundBytes.slice(2), 16);

  const seals = listOf(sealsItem, 'seals').map((s, i) => bytesOf(s, `seal ${i}`, 65).toLowerCase());

  return { vanity: vanity.toLowerCase(), validators, vote, round, seals };
}

/** The validators named in a header's extraData, or null when it is not QBFT extraData. */
export function validatorsFromExtraData(extraData: string): string[] | null {
  try {
    return decodeQbftExtraData(extraData).validators;
  } catch {
    return null;
  }
}
