/**
 * Token transfers read from logs (docs/api.md, "Tokens"): ERC-20 and ERC-721 `Transfer` (3 and 4
 * topics) and ERC-1155 `TransferSingle`/`TransferBatch`. Logs are chain data, so hostile: the few
 * fixed layouts are read word by word, a log whose topics or data do not have its layout exactly is
 * skipped, and the work is linear in the data the node already sent.
 */

export type TokenType = 'ERC-20' | 'ERC-721' | 'ERC-1155';

/** keccak256 of the event signatures. */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';
export const TRANSFER_SINGLE_TOPIC = '0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62';
export const TRANSFER_BATCH_TOPIC = '0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb';

export const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000';
/** `batch_index` of a transfer that is not one id of a TransferBatch. */
export const NO_BATCH_INDEX = -1;
/** `token_id` of a balance row of an ERC-20 or ERC-721 token (one row per token and holder). */
export const NO_TOKEN_ID = '-1';
/** A TransferBatch with more ids than this is skipped (each id is one row). */
export const MAX_BATCH_IDS = 10_000;

/** One transfer item, as stored (lowercase addresses, decimal strings). */
export interface TokenTransferRow {
  block: number;
  logIndex: number;
  batchIndex: number;
  txHash: string;
  token: string;
  type: TokenType;
  from: string;
  to: string;
  value: string | null;
  tokenId: string | null;
  timestamp: number;
}

const WORD_HEX = 64;
const ADDRESS_TOPIC = /^0x0{24}[0-9a-f]{40}$/;
const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;

const topicAddress = (topic: string | undefined): string | null => {
  if (topic === undefined) return null;
  const t = topic.toLowerCase();
  return ADDRESS_TOPIC.test(t) ? `0x${t.slice(26)}` : null;
};

const wordAt = (hex: string, word: number): bigint => BigInt(`0x${hex.slice(word * WORD_HEX, (word + 1) * WORD_HEX)}`);

const topicWord = (topic: string | undefined): string | null =>
  topic !== undefined && /^0x[0-9a-fA-F]{64}$/.test(topic) ? BigInt(topic).toString() : null;

/** A `uint256[]` of the ABI encoding at byte offset `offsetWord` of `hex` (no 0x); null when malformed. */
function uintArray(hex: string, offsetWord: bigint, words: number): bigint[] | null {
  if (offsetWord % 32n !== 0n) return null;
  const at = Number(offsetWord / 32n);
  if (!Number.isSafeInteger(at) || at >= words) return null;
  const length = wordAt(hex, at);
  if (length > BigInt(Math.min(MAX_BATCH_IDS, words - at - 1))) return null;
  const n = Number(length);
  const out: bigint[] = new Array<bigint>(n);
  for (let i = 0; i < n; i++) out[i] = wordAt(hex, at + 1 + i);
  return out;
}

/**
 * The transfer items of one log, or an empty list when the log is not a token transfer or does not
 * have the layout of its event. `address`, `txHash` lowercase.
 */
export function transfersOfLog(
  block: number,
  timestamp: number,
  txHash: string,
  log: { address: string; topics: readonly string[]; data: string; logIndex: number },
): TokenTransferRow[] {
  const topic0 = log.topics[0]?.toLowerCase();
  if (topic0 !== TRANSFER_TOPIC && topic0 !== TRANSFER_SINGLE_TOPIC && topic0 !== TRANSFER_BATCH_TOPIC) return [];
  if (!HEX_DATA.test(log.data)) return [];
  const data = log.data.slice(2);
  const words = data.length / WORD_HEX;
  const base = { block, logIndex: log.logIndex, batchIndex: NO_BATCH_INDEX, txHash, token: log.address, timestamp };

  if (topic0 === TRANSFER_TOPIC) {
    const from = topicAddress(log.topics[1]);
    const to = topicAddress(log.topics[2]);
    if (from === null || to === null) return [];
    if (log.topics.length === 3 && data.length === WORD_HEX) {
      return [{ ...base, type: 'ERC-20', from, to, value: wordAt(data, 0).toString(), tokenId: null }];
    }
    const tokenId = topicWord(log.topics[3]);
    if (log.topics.length === 4 && data.length === 0 && tokenId !== null) {
      return [{ ...base, type: 'ERC-721', from, to, value: null, tokenId }];
    }
    return [];
  }

  // TransferSingle/TransferBatch(address indexed operator, address indexed from, address indexed to, ...)
  if (log.topics.length !== 4 || topicAddress(log.topics[1]) === null) return [];
  const from = topicAddress(log.topics[2]);
  const to = topicAddress(log.topics[3]);
  if (from === null || to === null) return [];
  if (topic0 === TRANSFER_SINGLE_TOPIC) {
    if (data.length !== 2 * WORD_HEX) return [];
    return [
      {
        ...base,
        type: 'ERC-1155',
        from,
        to,
        tokenId: wordAt(data, 0).toString(),
        value: wordAt(data, 1).toString(),
      },
    ];
  }
  if (data.length % WORD_HEX !== 0 || words < 4) return [];
  const ids = uintArray(data, wordAt(data, 0), words);
  const values = uintArray(data, wordAt(data, 1), words);
  if (ids === null || values === null || ids.length !== values.length) return [];
  return ids.map((id, i) => ({
    ...base,
    batchIndex: i,
    type: 'ERC-1155' as const,
    from,
    to,
    tokenId: id.toString(),
    value: values[i]!.toString(),
  }));
}

/** What `transfersOfBlocks` reads of a block and its receipts (the explorer's FullBlock has it). */
export interface BlockWithLogs {
  block: { number: string; timestamp: string; transactions: ReadonlyArray<{ hash: string }> };
  receipts: ReadonlyArray<{
    logs: ReadonlyArray<{ address: string; topics: readonly string[]; data: string; logIndex: string }>;
  }>;
}

/** Hex characters of log data read between two turns of the event loop (about 2 ms of work). */
const WORK_PER_TURN = 64 * 20_000;

/**
 * The transfer items of a batch of blocks, in (block, log, batch index) order. The work is counted
 * in data read; past WORK_PER_TURN the loop is given back, so blocks built to be heavy never hold
 * it for long (docs/api.md, "Hostile chain data").
 */
export async function transfersOfBlocks(blocks: readonly BlockWithLogs[]): Promise<TokenTransferRow[]> {
  const rows: TokenTransferRow[] = [];
  let work = 0;
  for (const { block, receipts } of blocks) {
    const number = Number(BigInt(block.number));
    const timestamp = Number(BigInt(block.timestamp));
    for (let i = 0; i < receipts.length; i++) {
      const txHash = block.transactions[i]!.hash.toLowerCase();
      for (const log of receipts[i]!.logs) {
        const topic0 = log.topics[0]?.toLowerCase();
        if (topic0 !== TRANSFER_TOPIC && topic0 !== TRANSFER_SINGLE_TOPIC && topic0 !== TRANSFER_BATCH_TOPIC) continue;
        work += 64 + log.data.length;
        const items = transfersOfLog(number, timestamp, txHash, {
          address: log.address.toLowerCase(),
          topics: log.topics,
          data: log.data,
          logIndex: Number(BigInt(log.logIndex)),
        });
        for (const item of items) rows.push(item);
        if (work >= WORK_PER_TURN) {
          work = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    }
  }
  return rows;
}
