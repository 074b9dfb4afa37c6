import type { Queryable } from '../../../database/read-routing';
import type { DataSource, QueryRunner } from 'typeorm';
import type { Network } from '../../../kernel/network';
import { forgetTokenTransfers, transfersOfBlocks, writeTokenTransfers } from '../../tokens';
import {
  hexToDecimal,
  hexToNumber,
  type StoredActivity,
  type StoredBlock,
  type StoredLog,
  type StoredTransaction,
} from '../views/sources';
import type { FullBlock } from './chain-reader';

/** Progress of a network's index. */
export interface IndexState {
  firstBlock: number;
  lastBlock: number;
  lastHash: string;
  haltedReason: string | null;
}

/** A log of a contract with its block's hash and time (contract events). */
export interface StoredContractLog {
  blockNumber: number;
  logIndex: number;
  blockHash: string;
  timestamp: number;
  transactionHash: string;
  topics: string[];
  data: string;
}

/** A position in a network's logs: (block number, log index). */
export interface LogPosition {
  blockNumber: number;
  logIndex: number;
}

type Row = Record<string, unknown>;

const BLOCK_COLUMNS = `number, hash, parent_hash, timestamp, miner, transaction_count, gas_used, gas_limit, extra_data`;
const ACTIVITY_COLUMNS = `hash, block_number, transaction_index, timestamp, from_address, to_address, contract_address,
  value, status, method_id`;

const toBlock = (r: Row): StoredBlock => ({
  number: Number(r.number),
  hash: r.hash as string,
  parentHash: r.parent_hash as string,
  timestamp: Number(r.timestamp),
  miner: r.miner as string,
  transactionCount: Number(r.transaction_count),
  gasUsed: String(r.gas_used),
  gasLimit: String(r.gas_limit),
  extraData: r.extra_data as string,
});

const toActivity = (r: Row): StoredActivity => ({
  hash: r.hash as string,
  blockNumber: Number(r.block_number),
  transactionIndex: Number(r.transaction_index),
  timestamp: Number(r.timestamp),
  from: r.from_address as string,
  to: (r.to_address as string | null) ?? null,
  contractAddress: (r.contract_address as string | null) ?? null,
  value: String(r.value),
  status: Number(r.status),
  methodId: (r.method_id as string | null) ?? null,
});

const TRANSACTION_COLUMNS = `t.hash, t.block_number, t.transaction_index, t.timestamp, t.from_address, t.to_address,
  t.contract_address, t.value, t.status, t.method_id, t.nonce, t.gas_limit, t.gas_price, t.gas_used, t.input,
  b.hash AS block_hash`;

const toTransaction = (r: Row): StoredTransaction => ({
  ...toActivity(r),
  blockHash: r.block_hash as string,
  nonce: Number(r.nonce),
  gasLimit: String(r.gas_limit),
  gasPrice: String(r.gas_price),
  gasUsed: String(r.gas_used),
  input: r.input as string,
});

const toState = (r: Row): IndexState => ({
  firstBlock: Number(r.first_block),
  lastBlock: Number(r.last_block),
  lastHash: r.last_hash as string,
  haltedReason: (r.halted_reason as string | null) ?? null,
});

const toLog = (r: Row): StoredLog => ({
  address: r.address as string,
  topics: r.topics as string[],
  data: r.data as string,
  logIndex: Number(r.log_index),
});

/** Column arrays for one batch of blocks: one unnest() INSERT per table. */
function batchColumns(blocks: FullBlock[]) {
  const b = {
    number: [] as number[],
    hash: [] as string[],
    parent: [] as string[],
    timestamp: [] as number[],
    miner: [] as string[],
    txCount: [] as number[],
    gasUsed: [] as string[],
    gasLimit: [] as string[],
    extra: [] as string[],
  };
  const t = {
    hash: [] as string[],
    block: [] as number[],
    index: [] as number[],
    timestamp: [] as number[],
    from: [] as string[],
    to: [] as Array<string | null>,
    created: [] as Array<string | null>,
    value: [] as string[],
    nonce: [] as number[],
    gasLimit: [] as string[],
    gasPrice: [] as string[],
    gasUsed: [] as string[],
    status: [] as number[],
    methodId: [] as Array<string | null>,
    input: [] as string[],
  };
  const l = {
    block: [] as number[],
    index: [] as number[],
    tx: [] as string[],
    address: [] as string[],
    topics: [] as string[],
    data: [] as string[],
  };
  for (const { block, receipts } of blocks) {
    const number = hexToNumber(block.number);
    const timestamp = hexToNumber(block.timestamp);
    b.number.push(number);
    b.hash.push(block.hash.toLowerCase());
    b.parent.push(block.parentHash.toLowerCase());
    b.timestamp.push(timestamp);
    b.miner.push(block.miner.toLowerCase());
    b.txCount.push(block.transactions.length);
    b.gasUsed.push(hexToDecimal(block.gasUsed));
    b.gasLimit.push(hexToDecimal(block.gasLimit));
    b.extra.push(block.extraData ?? '0x');
    block.transactions.forEach((tx, i) => {
      const receipt = receipts[i]!;
      const input = tx.input ?? '0x';
      t.hash.push(tx.hash.toLowerCase());
      t.block.push(number);
      t.index.push(i);
      t.timestamp.push(timestamp);
      t.from.push(tx.from.toLowerCase());
      t.to.push(tx.to ? tx.to.toLowerCase() : null);
      t.created.push(receipt.contractAddress ? receipt.contractAddress.toLowerCase() : null);
      t.value.push(hexToDecimal(tx.value));
      t.nonce.push(hexToNumber(tx.nonce));
      t.gasLimit.push(hexToDecimal(tx.gas));
      t.gasPrice.push(hexToDecimal(receipt.effectiveGasPrice ?? tx.gasPrice));
      t.gasUsed.push(hexToDecimal(receipt.gasUsed));
      // Receipts before Byzantium have no status; QBFT networks start after it.
      t.status.push(receipt.status === undefined || BigInt(receipt.status) === 1n ? 1 : 0);
      t.methodId.push(input.length >= 10 ? input.slice(0, 10).toLowerCase() : null);
      t.input.push(input);
      for (const log of receipt.logs) {
        l.block.push(number);
        l.index.push(hexToNumber(log.logIndex));
        l.tx.push(tx.hash.toLowerCase());
        l.address.push(log.address.toLowerCase());
        l.topics.push(log.topics.map((x) => x.toLowerCase()).join(','));
        l.data.push(log.data);
      }
    });
  }
  return { b, t, l };
}

/**
 * A batch's blocks, transactions and logs (one unnest() insert each) and the move of the progress
 * row, in one statement: one round trip per batch before its token items. The progress row only
 * moves from `previousLast` ($5); `moved` is 0 when another writer moved it.
 */
const WRITE_BATCH_SQL = `
  WITH state AS (
    INSERT INTO explorer_index_state (network, first_block, last_block, last_hash)
    VALUES ($1, $2, $3, $4)
    ON CONFLICT (network) DO UPDATE
      SET last_block = EXCLUDED.last_block, last_hash = EXCLUDED.last_hash, updated_at = now()
      WHERE explorer_index_state.last_block = $5 AND explorer_index_state.halted_reason IS NULL
    RETURNING network
  ), blocks AS (
    INSERT INTO explorer_blocks (network, ${BLOCK_COLUMNS})
    SELECT $1, * FROM unnest($6::bigint[], $7::text[], $8::text[], $9::bigint[], $10::text[], $11::int[],
                             $12::numeric[], $13::numeric[], $14::text[])
    ON CONFLICT DO NOTHING
  ), transactions AS (
    INSERT INTO explorer_transactions (network, hash, block_number, transaction_index, timestamp, from_address,
      to_address, contract_address, value, nonce, gas_limit, gas_price, gas_used, status, method_id, input)
    SELECT $1, * FROM unnest($15::text[], $16::bigint[], $17::int[], $18::bigint[], $19::text[], $20::text[],
                             $21::text[], $22::numeric[], $23::bigint[], $24::numeric[], $25::numeric[],
                             $26::numeric[], $27::smallint[], $28::text[], $29::text[])
    ON CONFLICT DO NOTHING
  ), logs AS (
    INSERT INTO explorer_logs (network, block_number, log_index, transaction_hash, address, topics, data)
    SELECT $1, u.block_number, u.log_index, u.tx, u.address,
           CASE WHEN u.topics = '' THEN '{}'::text[] ELSE string_to_array(u.topics, ',') END, u.data
      FROM unnest($30::bigint[], $31::int[], $32::text[], $33::text[], $34::text[], $35::text[])
        AS u(block_number, log_index, tx, address, topics, data)
    ON CONFLICT DO NOTHING
  )
  SELECT count(*)::int AS moved FROM state`;

/** The explorer's index in PostgreSQL: batch writes for the indexer, reads for the endpoints. */
export class BlockIndex {
  /** `reads`: the DataSource of each read (DATABASE_READ_URL's replica for anonymous explorer reads). */
  constructor(
    ds: DataSource,
    private readonly reads: () => Queryable = () => ds,
  ) {}

  async state(network: Network, runner?: QueryRunner): Promise<IndexState | null> {
    const rows: Row[] = await (runner ?? this.reads()).query(
      `SELECT first_block, last_block, last_hash, halted_reason FROM explorer_index_state WHERE network = $1`,
      [network],
    );
    return rows[0] ? toState(rows[0]) : null;
  }

  /**
   * The network's progress and the activity of `address` (as activity() reads it), in one
   * statement: the address page. No progress row, no activity (the index has none to serve).
   */
  async stateAndActivity(
    network: Network,
    address: string,
    limit: number,
  ): Promise<{ state: IndexState | null; activity: StoredActivity[] }> {
    const rows: Row[] = await this.reads().query(
      `SELECT s.first_block, s.last_block, s.last_hash, s.halted_reason, a.*
         FROM explorer_index_state s
         LEFT JOIN LATERAL (${BlockIndex.ACTIVITY_SQL}) a ON true
        WHERE s.network = $1
        ORDER BY a.block_number DESC, a.transaction_index DESC`,
      [network, address.toLowerCase(), limit],
    );
    if (!rows[0]) return { state: null, activity: [] };
    return { state: toState(rows[0]), activity: rows.filter((r) => r.hash !== null).map(toActivity) };
  }

  /**
   * Writes consecutive blocks, their transactions and logs, and moves the progress row, all in one
   * transaction on `runner` (the connection that holds the network's advisory lock). The progress
   * row only moves from `previousLast`: if another writer moved it, nothing is written and false
   * is returned.
   */
  async writeBatch(
    runner: QueryRunner,
    network: Network,
    blocks: FullBlock[],
    previousLast: number | null,
    firstBlock: number,
  ): Promise<boolean> {
    if (blocks.length === 0) return true;
    const { b, t, l } = batchColumns(blocks);
    // Token transfer items of the batch's logs (docs/api.md, "Tokens"), read before the transaction
    // opens, giving the event loop back as the work grows; malformed logs give none.
    const tokens = await transfersOfBlocks(blocks);
    const last = blocks[blocks.length - 1]!.block;
    await runner.startTransaction();
    try {
      const moved: Row[] = await runner.query(WRITE_BATCH_SQL, [
        network,
        firstBlock,
        hexToNumber(last.number),
        last.hash.toLowerCase(),
        previousLast,
        b.number,
        b.hash,
        b.parent,
        b.timestamp,
        b.miner,
        b.txCount,
        b.gasUsed,
        b.gasLimit,
        b.extra,
        t.hash,
        t.block,
        t.index,
        t.timestamp,
        t.from,
        t.to,
        t.created,
        t.value,
        t.nonce,
        t.gasLimit,
        t.gasPrice,
        t.gasUsed,
        t.status,
        t.methodId,
        t.input,
        l.block,
        l.index,
        l.tx,
        l.address,
        l.topics,
        l.data,
      ]);
      if (moved[0]?.moved !== 1) {
        await runner.rollbackTransaction();
        return false;
      }
      await writeTokenTransfers(runner, network, tokens);
      await runner.commitTransaction();
      return true;
    } catch (err) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    }
  }

  /**
   * Drops the network's index from block `fromBlock` on (all of it when 0 or below the first indexed
   * block), in one transaction on the lock's connection: for a dev chain that lost blocks or was reset.
   */
  async forgetFrom(runner: QueryRunner, network: Network, fromBlock: number): Promise<void> {
    await runner.startTransaction();
    try {
      const state = await this.state(network, runner);
      const all = state === null || fromBlock <= state.firstBlock;
      await forgetTokenTransfers(runner, network, all ? 0 : fromBlock);
      await runner.query(`DELETE FROM explorer_logs WHERE network = $1 AND block_number >= $2`, [network, fromBlock]);
      await runner.query(`DELETE FROM explorer_transactions WHERE network = $1 AND block_number >= $2`, [
        network,
        fromBlock,
      ]);
      await runner.query(`DELETE FROM explorer_blocks WHERE network = $1 AND number >= $2`, [network, fromBlock]);
      if (all) {
        await runner.query(`DELETE FROM explorer_index_state WHERE network = $1`, [network]);
        await runner.query(`DELETE FROM explorer_contract_checks WHERE network = $1`, [network]);
      } else {
        await runner.query(
          `UPDATE explorer_index_state
             SET last_block = b.number, last_hash = b.hash, halted_reason = NULL, updated_at = now()
             FROM explorer_blocks b
            WHERE explorer_index_state.network = $1 AND b.network = $1 AND b.number = $2`,
          [network, fromBlock - 1],
        );
      }
      await runner.commitTransaction();
    } catch (err) {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      throw err;
    }
  }

  /** Marks the network's index as halted; every instance stops indexing it until an operator clears it. */
  async halt(runner: QueryRunner, network: Network, reason: string): Promise<void> {
    await runner.query(`UPDATE explorer_index_state SET halted_reason = $2, updated_at = now() WHERE network = $1`, [
      network,
      reason,
    ]);
  }

  async blockByNumber(network: Network, number: number): Promise<StoredBlock | null> {
    const rows: Row[] = await this.reads().query(
      `SELECT ${BLOCK_COLUMNS} FROM explorer_blocks WHERE network = $1 AND number = $2`,
      [network, number],
    );
    return rows[0] ? toBlock(rows[0]) : null;
  }

  async blockByHash(network: Network, hash: string): Promise<StoredBlock | null> {
    const rows: Row[] = await this.reads().query(
      `SELECT ${BLOCK_COLUMNS} FROM explorer_blocks WHERE network = $1 AND hash = $2`,
      [network, hash],
    );
    return rows[0] ? toBlock(rows[0]) : null;
  }

  /** Blocks with numbers in [from, to] that are in the index, newest first. */
  async blocksBetween(network: Network, from: number, to: number): Promise<StoredBlock[]> {
    const rows: Row[] = await this.reads().query(
      `SELECT ${BLOCK_COLUMNS} FROM explorer_blocks WHERE network = $1 AND number BETWEEN $2 AND $3 ORDER BY number DESC`,
      [network, from, to],
    );
    return rows.map(toBlock);
  }

  async transactionHashes(network: Network, blockNumber: number): Promise<string[]> {
    const rows: Row[] = await this.reads().query(
      `SELECT hash FROM explorer_transactions WHERE network = $1 AND block_number = $2 ORDER BY transaction_index`,
      [network, blockNumber],
    );
    return rows.map((r) => r.hash as string);
  }

  async transaction(network: Network, hash: string): Promise<StoredTransaction | null> {
    const rows: Row[] = await this.reads().query(
      `SELECT ${TRANSACTION_COLUMNS} FROM explorer_transactions t
       JOIN explorer_blocks b ON b.network = t.network AND b.number = t.block_number
       WHERE t.network = $1 AND t.hash = $2`,
      [network, hash],
    );
    return rows[0] ? toTransaction(rows[0]) : null;
  }

  /** A transaction and its logs in log order, in one statement: the explorer's tx page. */
  async transactionWithLogs(
    network: Network,
    hash: string,
  ): Promise<{ transaction: StoredTransaction; logs: StoredLog[] } | null> {
    const rows: Row[] = await this.reads().query(
      `SELECT ${TRANSACTION_COLUMNS},
         (SELECT coalesce(json_agg(json_build_object('address', l.address, 'topics', l.topics, 'data', l.data,
                                                     'log_index', l.log_index) ORDER BY l.log_index), '[]')
            FROM explorer_logs l
           WHERE l.network = t.network AND l.block_number = t.block_number AND l.transaction_hash = t.hash) AS logs
       FROM explorer_transactions t
       JOIN explorer_blocks b ON b.network = t.network AND b.number = t.block_number
       WHERE t.network = $1 AND t.hash = $2`,
      [network, hash],
    );
    const r = rows[0];
    if (!r) return null;
    return { transaction: toTransaction(r), logs: (r.logs as Row[]).map(toLog) };
  }

  /**
   * Logs of the contract at `address` (lowercase) whose first topic is one of `topics`, after
   * `after` and up to block `toBlock`, oldest first: for each topic, one walk of
   * explorer_logs_event_idx that stops after `limit` logs; the merge keeps the oldest. A rare event
   * of a busy contract costs what a frequent one does.
   */
  async contractLogs(
    network: Network,
    address: string,
    topics: string[],
    after: LogPosition | null,
    toBlock: number | null,
    limit: number,
  ): Promise<StoredContractLog[]> {
    const rows: Row[] = await this.reads().query(
      `SELECT l.block_number, l.log_index, l.transaction_hash, l.topics, l.data, b.hash AS block_hash, b.timestamp
       FROM (SELECT DISTINCT unnest($6::text[]) AS topic) e
       CROSS JOIN LATERAL (
         SELECT x.network, x.block_number, x.log_index, x.transaction_hash, x.topics, x.data FROM explorer_logs x
          WHERE x.network = $1 AND x.address = $2 AND x.topics[1] = e.topic
            AND (x.block_number, x.log_index) > ($3::bigint, $4::int)
            AND ($5::bigint IS NULL OR x.block_number <= $5::bigint)
          ORDER BY x.block_number, x.log_index
          LIMIT $7
       ) l
       JOIN explorer_blocks b ON b.network = l.network AND b.number = l.block_number
       ORDER BY l.block_number, l.log_index
       LIMIT $7`,
      [network, address.toLowerCase(), after?.blockNumber ?? -1, after?.logIndex ?? -1, toBlock, topics, limit],
    );
    return rows.map((r) => ({
      blockNumber: Number(r.block_number),
      logIndex: Number(r.log_index),
      blockHash: r.block_hash as string,
      timestamp: Number(r.timestamp),
      transactionHash: r.transaction_hash as string,
      topics: r.topics as string[],
      data: r.data as string,
    }));
  }

  /**
   * Transactions from, to or creating `address` (lowercase), newest first. Each branch walks its
   * own index (from, to, created) and stops after `limit` rows; the merge keeps the newest.
   */
  static readonly ACTIVITY_SQL = `
    SELECT * FROM (
      (SELECT ${ACTIVITY_COLUMNS} FROM explorer_transactions
        WHERE network = $1 AND from_address = $2
        ORDER BY block_number DESC, transaction_index DESC LIMIT $3)
      UNION ALL
      (SELECT ${ACTIVITY_COLUMNS} FROM explorer_transactions
        WHERE network = $1 AND to_address = $2 AND from_address <> $2
        ORDER BY block_number DESC, transaction_index DESC LIMIT $3)
      UNION ALL
      (SELECT ${ACTIVITY_COLUMNS} FROM explorer_transactions
        WHERE network = $1 AND contract_address = $2 AND from_address <> $2
        LIMIT 1)
    ) activity
    ORDER BY block_number DESC, transaction_index DESC
    LIMIT $3`;

  async activity(network: Network, address: string, limit: number): Promise<StoredActivity[]> {
    const rows: Row[] = await this.reads().query(BlockIndex.ACTIVITY_SQL, [network, address.toLowerCase(), limit]);
    return rows.map(toActivity);
  }

  /** Whether the index saw a contract being created at `address` (lowercase). */
  async isCreatedContract(network: Network, address: string): Promise<boolean> {
    const rows: Row[] = await this.reads().query(
      `SELECT 1 FROM explorer_transactions WHERE network = $1 AND contract_address = $2 LIMIT 1`,
      [network, address.toLowerCase()],
    );
    return rows.length > 0;
  }
}
