import { Repeater } from '@graphql-yoga/subscription';
import type { DataSource } from 'typeorm';
import type { Network } from '../../kernel/network';
import { AppError, isAppError } from '../../kernel/errors/app-error';
import { checksum, parseAddress } from '../../kernel/address';
import { NetworkName } from '../../kernel/network-name';
import { decodeCursorWith, encodeCursor, pageLimit } from '../../kernel/pagination';
import type { Logger } from '../../kernel/logger';
import { readTokenMetadata, type NodeCall } from './token-metadata';
import { NO_BATCH_INDEX, NO_TOKEN_ID, type TokenType } from './token-logs';
import {
  TokenTransferDirection,
  type TokenBalances,
  type TokenHolderPage,
  type TokenInfo,
  type TokenLookup,
  type TokenPage,
  type TokenTransfer,
  type TokenTransferPage,
  type TransferToken,
} from './tokens.types';

type Row = Record<string, unknown>;

/** What the `tokenTransfers` subscription needs of the explorer's index: its progress and its signal. */
export interface IndexProgress {
  lastBlock(network: Network): Promise<number | null>;
  /** A counter that moves with every batch indexed: read it before reading the index, wait with it after. */
  version(network: Network): number;
  /** Resolves once the index moved past `since` (or after a while anyway, or when `cancel` settles). */
  wait(network: Network, since: number, cancel: Promise<unknown>): Promise<void>;
}

/** The arguments of the `tokenTransfers` subscription. */
export interface TokenTransfersSubscription {
  network?: NetworkName | null;
  address?: string | null;
  token?: string | null;
  fromBlock?: number | null;
}

/** Transfers read per page by a subscription's loop. */
const FOLLOW_PAGE = 100;
const END = 2147483647;

/** An error that ends a subscription: graphql-ws reports its message and `extensions` only. */
function streamError(err: AppError): Error {
  return Object.assign(err, { extensions: { code: err.code, ...(err.details ? { details: err.details } : {}) } });
}

const TYPES: Record<string, TokenType> = {
  'erc-20': 'ERC-20',
  erc20: 'ERC-20',
  'erc-721': 'ERC-721',
  erc721: 'ERC-721',
  'erc-1155': 'ERC-1155',
  erc1155: 'ERC-1155',
};
/** Tokens whose metadata one request may read from the node; the others show nulls until later. */
const METADATA_READS_PER_REQUEST = 8;
/** Search hits of tokens (docs/api.md, "Tokens"). */
const SEARCH_LIMIT = 25;
const MAX_BIGINT = '9223372036854775807';
const MAX_QUERY_LENGTH = 200;

const invalid = (field: string, reason: string) =>
  new AppError('VALIDATION_FAILED', `Invalid ${field}: ${reason}`, { field, reason });

function parseType(value: string | null | undefined): TokenType | null {
  if (value === null || value === undefined) return null;
  const type = TYPES[value.trim().toLowerCase()];
  if (!type) throw invalid('type', 'must be ERC-20, ERC-721 or ERC-1155');
  return type;
}

const network = (n: NetworkName | null | undefined): Network => n ?? NetworkName.mainnet;
/** A LIKE pattern matching what starts with `text` (its wildcards escaped): tokens_name_idx serves it. */
const likePrefix = (text: string): string => `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
const lower = (address: string, field: string) => parseAddress(address, field).toLowerCase();

export interface TransferPosition {
  b: number;
  l: number;
  i: number;
}
const transferCursor = (cursor: string | null | undefined) =>
  decodeCursorWith<TransferPosition>(cursor, (raw) =>
    Number.isSafeInteger(raw.b) && Number.isSafeInteger(raw.l) && Number.isSafeInteger(raw.i)
      ? { b: raw.b as number, l: raw.l as number, i: raw.i as number }
      : undefined,
  );

const DECIMAL = /^-?\d{1,80}$/;
interface HolderPosition {
  v: string;
  h: string;
  t: string;
}
const holderCursor = (cursor: string | null | undefined) =>
  decodeCursorWith<HolderPosition>(cursor, (raw) =>
    typeof raw.v === 'string' &&
    DECIMAL.test(raw.v) &&
    typeof raw.h === 'string' &&
    /^0x[0-9a-f]{40}$/.test(raw.h) &&
    typeof raw.t === 'string' &&
    DECIMAL.test(raw.t)
      ? { v: raw.v, h: raw.h, t: raw.t }
      : undefined,
  );
const tokenCursor = (cursor: string | null | undefined) =>
  decodeCursorWith<{ a: string }>(cursor, (raw) =>
    typeof raw.a === 'string' && /^0x[0-9a-f]{40}$/.test(raw.a) ? { a: raw.a } : undefined,
  );

const TRANSFER_COLUMNS = `block_number, log_index, batch_index, tx_hash, token, type, from_address, to_address,
  value::text AS value, token_id::text AS token_id, timestamp`;
const TRANSFER_ORDER = `block_number DESC, log_index DESC, batch_index DESC`;
const TRANSFER_ORDER_ASC = `block_number, log_index, batch_index`;

/**
 * A page of transfers (`sql`, its network in `$1`) with its tokens' metadata beside each row, in
 * `order`: one round trip for the page and its tokens (transferItems reads them apart only when a
 * token's metadata was never read).
 */
const withTokens = (sql: string, order: string) =>
  `SELECT p.*, k.name AS token_name, k.symbol AS token_symbol, k.decimals AS token_decimals,
          k.address IS NOT NULL AS token_known, k.metadata_read_at IS NOT NULL AS token_metadata_read
     FROM (${sql}) p LEFT JOIN tokens k ON k.network = $1 AND k.address = p.token
    ORDER BY ${order}`;

interface StoredToken {
  address: string;
  type: TokenType;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  totalSupply: string | null;
  metadataRead: boolean;
  holderCount: number;
  transferCount: number;
}

const toStoredToken = (r: Row): StoredToken => ({
  address: r.address as string,
  type: r.type as TokenType,
  name: (r.name as string | null) ?? null,
  symbol: (r.symbol as string | null) ?? null,
  decimals: r.decimals === null || r.decimals === undefined ? null : Number(r.decimals),
  totalSupply: r.total_supply === null || r.total_supply === undefined ? null : String(r.total_supply),
  metadataRead: r.metadata_read_at !== null && r.metadata_read_at !== undefined,
  holderCount: Number(r.holder_count),
  transferCount: Number(r.transfer_count),
});
const TOKEN_COLUMNS = `address, type, name, symbol, decimals, total_supply::text AS total_supply, metadata_read_at,
  holder_count, transfer_count`;

const tokenInfo = (t: StoredToken): TokenInfo => ({
  address: checksum(t.address),
  type: t.type,
  name: t.name,
  symbol: t.symbol,
  decimals: t.type === 'ERC-20' ? t.decimals : null,
  totalSupply: t.totalSupply,
  holderCount: t.holderCount,
  transferCount: t.transferCount,
});

/**
 * Token transfers, balances, holders and tokens from the index (docs/api.md, "Tokens"); token
 * metadata read from the contracts lazily, through the hostile-data rules, and kept in `tokens`.
 */
export class TokensService {
  constructor(
    private readonly ds: DataSource,
    private readonly call: NodeCall,
    private readonly progress: IndexProgress,
    private readonly log: Logger,
  ) {}

  /**
   * The `tokenTransfers` subscription's feed: every transfer of `token` and/or to or from
   * `address` from `fromBlock` (default: the next block the index takes in), then the new ones as
   * the index grows, in (block, log, batch index) order, none missed or repeated. Pages are read
   * after the last item delivered and handed over one at a time, so a slow subscriber is paced by
   * the database, not buffered.
   */
  follow(request: TokenTransfersSubscription): AsyncIterableIterator<TokenTransfer> {
    return new Repeater<TokenTransfer>(async (push, stop) => {
      let stopped = false;
      void stop.then(() => (stopped = true));
      try {
        const net = network(request.network);
        const address = request.address ? lower(request.address, 'address') : null;
        const token = request.token ? lower(request.token, 'token') : null;
        if (address === null && token === null) throw invalid('address', 'give an address, a token or both');
        const fromBlock = request.fromBlock ?? null;
        if (fromBlock !== null && (!Number.isSafeInteger(fromBlock) || fromBlock < 0)) {
          throw invalid('fromBlock', 'must be a block number (an integer from 0)');
        }
        const start = fromBlock !== null ? fromBlock - 1 : await this.progress.lastBlock(net);
        let after: TransferPosition = { b: start ?? -1, l: END, i: END };
        while (!stopped) {
          // Read before the page: a batch committed while the page is read wakes the wait below at once.
          const version = this.progress.version(net);
          const page = await this.transfersAfter(net, address, token, after, FOLLOW_PAGE);
          for (const { position, item } of page) {
            if (stopped) return;
            await push(item);
            after = position;
          }
          if (page.length === FOLLOW_PAGE) continue;
          await this.progress.wait(net, version, stop);
        }
      } catch (err) {
        if (isAppError(err)) {
          stop(streamError(err));
          return;
        }
        this.log.error({ err }, 'A token transfers subscription failed');
        stop(
          streamError(
            new AppError(
              'SERVICE_UNAVAILABLE',
              'The transfers could not be read; subscribe again with fromBlock after the last transfer received',
            ),
          ),
        );
      }
    });
  }

  /** Transfers to or from an address, newest first; a self-transfer is listed once. */
  async addressTransfers(
    addressArg: string,
    networkArg: NetworkName | null | undefined,
    typeArg: string | null | undefined,
    tokenArg: string | null | undefined,
    direction: TokenTransferDirection | null | undefined,
    limitArg: number | null | undefined,
    cursorArg: string | null | undefined,
  ): Promise<TokenTransferPage> {
    const net = network(networkArg);
    const address = lower(addressArg, 'address');
    const type = parseType(typeArg);
    const token = tokenArg === null || tokenArg === undefined ? null : lower(tokenArg, 'token');
    const limit = pageLimit(limitArg);
    const after = transferCursor(cursorArg);
    // The page's positions first, each branch an index-only walk of the sender's or the recipient's
    // index, whose rows carry type and token: a filter that few of a busy address's transfers pass
    // reads index entries, not the table (BENCHMARKS.md, "Token transfers in the index"); then the
    // page's rows alone.
    const branch = (column: string) => `
      (SELECT block_number, log_index, batch_index FROM token_transfers
        WHERE network = $1 AND ${column} = $2 AND ($3::text IS NULL OR type = $3) AND ($4::text IS NULL OR token = $4)
          AND (block_number, log_index, batch_index) < ($5::bigint, $6::int, $7::int)
        ORDER BY ${TRANSFER_ORDER} LIMIT $8)`;
    const positions =
      direction === TokenTransferDirection.in
        ? branch('to_address')
        : direction === TokenTransferDirection.out
          ? branch('from_address')
          : `SELECT * FROM (${branch('from_address')} UNION ${branch('to_address')}) t ORDER BY ${TRANSFER_ORDER} LIMIT $8`;
    const sql = `SELECT ${TRANSFER_COLUMNS} FROM (${positions}) page
      JOIN token_transfers USING (block_number, log_index, batch_index)
      WHERE network = $1`;
    const rows: Row[] = await this.ds.query(withTokens(sql, TRANSFER_ORDER), [
      net,
      address,
      type,
      token,
      after?.b ?? MAX_BIGINT,
      after?.l ?? 2147483647,
      after?.i ?? 2147483647,
      limit + 1,
    ]);
    return this.transferPage(net, rows, limit);
  }

  /** Transfers of a token, newest first. */
  async tokenTransfers(
    tokenArg: string,
    networkArg: NetworkName | null | undefined,
    limitArg: number | null | undefined,
    cursorArg: string | null | undefined,
  ): Promise<TokenTransferPage> {
    const net = network(networkArg);
    const token = lower(tokenArg, 'address');
    const limit = pageLimit(limitArg);
    const after = transferCursor(cursorArg);
    const rows: Row[] = await this.ds.query(
      withTokens(
        `SELECT ${TRANSFER_COLUMNS} FROM token_transfers
          WHERE network = $1 AND token = $2 AND (block_number, log_index, batch_index) < ($3::bigint, $4::int, $5::int)
          ORDER BY ${TRANSFER_ORDER} LIMIT $6`,
        TRANSFER_ORDER,
      ),
      [net, token, after?.b ?? MAX_BIGINT, after?.l ?? 2147483647, after?.i ?? 2147483647, limit + 1],
    );
    return this.transferPage(net, rows, limit);
  }

  /**
   * The token transfers of one transaction of block `blockNumber`, in log order (the explorer's
   * `tx/{hash}`): the block's transfers by the primary key, the transaction's kept.
   */
  async transactionTransfers(net: Network, blockNumber: number, txHash: string): Promise<TokenTransfer[]> {
    const rows: Row[] = await this.ds.query(
      withTokens(
        `SELECT ${TRANSFER_COLUMNS} FROM token_transfers WHERE network = $1 AND block_number = $2 AND tx_hash = $3
          ORDER BY ${TRANSFER_ORDER_ASC} LIMIT 1000`,
        TRANSFER_ORDER_ASC,
      ),
      [net, blockNumber, txHash.toLowerCase()],
    );
    return this.transferItems(net, rows);
  }

  /**
   * Transfers of `token` to or from `address` (either when null) after a position, oldest first:
   * the replay of the `tokenTransfers` subscription.
   */
  async transfersAfter(
    net: Network,
    address: string | null,
    token: string | null,
    after: TransferPosition,
    limit: number,
  ): Promise<Array<{ position: TransferPosition; item: TokenTransfer }>> {
    const rows: Row[] = await this.ds.query(
      withTokens(
        `SELECT ${TRANSFER_COLUMNS} FROM token_transfers
          WHERE network = $1 AND ($2::text IS NULL OR from_address = $2 OR to_address = $2)
            AND ($3::text IS NULL OR token = $3)
            AND (block_number, log_index, batch_index) > ($4::bigint, $5::int, $6::int)
          ORDER BY ${TRANSFER_ORDER_ASC} LIMIT $7`,
        TRANSFER_ORDER_ASC,
      ),
      [net, address, token, after.b, after.l, after.i, limit],
    );
    const items = await this.transferItems(net, rows);
    return rows.map((r, i) => ({
      position: { b: Number(r.block_number), l: Number(r.log_index), i: Number(r.batch_index) },
      item: items[i]!,
    }));
  }

  async addressBalances(addressArg: string, networkArg: NetworkName | null | undefined): Promise<TokenBalances> {
    const net = network(networkArg);
    const address = lower(addressArg, 'address');
    const rows: Row[] = await this.ds.query(
      `SELECT b.token, b.token_id::text AS token_id, b.value::text AS value FROM token_balances b
        WHERE b.network = $1 AND b.holder = $2 AND b.value > 0 ORDER BY b.token, b.token_id LIMIT 10000`,
      [net, address],
    );
    return {
      items: rows.map((r) => ({
        token: checksum(r.token as string),
        value: r.value as string,
        tokenId: r.token_id === NO_TOKEN_ID ? null : (r.token_id as string),
      })),
    };
  }

  async token(addressArg: string, networkArg: NetworkName | null | undefined): Promise<TokenLookup> {
    const net = network(networkArg);
    const address = lower(addressArg, 'address');
    const [stored] = await this.stored(net, [address]);
    if (!stored) return { found: false, token: null };
    // totalSupply moves with every mint and burn: read now, the stored one when the node is away.
    const live = await readTokenMetadata(this.call, net, address, stored.type === 'ERC-20');
    const totalSupply = live.totalSupply ?? (live.settled ? null : stored.totalSupply);
    if (live.settled && live.totalSupply !== stored.totalSupply) {
      await this.ds.query(`UPDATE tokens SET total_supply = $3 WHERE network = $1 AND address = $2`, [
        net,
        address,
        live.totalSupply,
      ]);
    }
    return { found: true, token: { ...tokenInfo(stored), totalSupply } };
  }

  async tokens(
    networkArg: NetworkName | null | undefined,
    typeArg: string | null | undefined,
    qArg: string | null | undefined,
    limitArg: number | null | undefined,
    cursorArg: string | null | undefined,
  ): Promise<TokenPage> {
    const net = network(networkArg);
    const type = parseType(typeArg);
    const q = qArg === null || qArg === undefined || qArg.trim() === '' ? null : qArg.trim().toLowerCase();
    if (q !== null && q.length > MAX_QUERY_LENGTH) throw invalid('q', `must be at most ${MAX_QUERY_LENGTH} characters`);
    const limit = pageLimit(limitArg);
    const after = tokenCursor(cursorArg);
    await this.readMissingMetadata(net, null);
    const rows: Row[] = await this.ds.query(
      `SELECT ${TOKEN_COLUMNS} FROM tokens
        WHERE network = $1 AND ($2::text IS NULL OR type = $2) AND address > $3
          AND ($4::text IS NULL OR lower(name) LIKE $4 OR lower(symbol) LIKE $4)
        ORDER BY address LIMIT $5`,
      [net, type, after?.a ?? '', q === null ? null : likePrefix(q), limit + 1],
    );
    const page = rows.slice(0, limit).map(toStoredToken);
    return {
      items: page.map(tokenInfo),
      nextCursor: rows.length > limit ? encodeCursor({ a: page[page.length - 1]!.address }) : null,
    };
  }

  /** Tokens whose name or symbol starts with `text` (the explorer's search). */
  async search(net: Network, text: string): Promise<Array<{ address: string; name: string; symbol: string | null }>> {
    await this.readMissingMetadata(net, null);
    const prefix = text.trim().toLowerCase();
    const rows: Row[] = await this.ds.query(
      `SELECT address, name, symbol FROM tokens
        WHERE network = $1 AND name IS NOT NULL AND (lower(name) LIKE $2 OR lower(symbol) LIKE $2)
        ORDER BY transfer_count DESC, address LIMIT $3`,
      [net, likePrefix(prefix), SEARCH_LIMIT],
    );
    return rows.map((r) => ({
      address: checksum(r.address as string),
      name: r.name as string,
      symbol: (r.symbol as string | null) ?? null,
    }));
  }

  async holders(
    tokenArg: string,
    networkArg: NetworkName | null | undefined,
    limitArg: number | null | undefined,
    cursorArg: string | null | undefined,
  ): Promise<TokenHolderPage> {
    const net = network(networkArg);
    const token = lower(tokenArg, 'address');
    const limit = pageLimit(limitArg);
    const after = holderCursor(cursorArg);
    // One walk of token_balances_value_idx from the start or from the cursor (two statements: an
    // `IS NULL OR` would keep the planner from using the index's order).
    const rows: Row[] = await this.ds.query(
      `SELECT b.holder, b.value::text AS value, b.token_id::text AS token_id FROM token_balances b
        WHERE b.network = $1 AND b.token = $2 AND b.value > 0
          ${after ? 'AND (b.value, b.holder, b.token_id) < ($4::numeric, $5::text, $6::numeric)' : ''}
        ORDER BY b.value DESC, b.holder DESC, b.token_id DESC LIMIT $3`,
      after ? [net, token, limit + 1, after.v, after.h, after.t] : [net, token, limit + 1],
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map((r) => ({
        address: checksum(r.holder as string),
        value: r.value as string,
        tokenId: r.token_id === NO_TOKEN_ID ? null : (r.token_id as string),
      })),
      nextCursor:
        rows.length > limit && last
          ? encodeCursor({ v: last.value as string, h: last.holder as string, t: last.token_id as string })
          : null,
    };
  }

  private async transferPage(net: Network, rows: Row[], limit: number): Promise<TokenTransferPage> {
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: await this.transferItems(net, page),
      nextCursor:
        rows.length > limit && last
          ? encodeCursor({ b: Number(last.block_number), l: Number(last.log_index), i: Number(last.batch_index) })
          : null,
    };
  }

  /**
   * Transfers matching an asset-transfers query (docs/api.md, "JSON-RPC door":
   * `alchemy_getAssetTransfers`): a block range, sender and recipient (AND), tokens and types, in
   * block order either way, `limit` after a position.
   */
  async assetTransfers(
    net: Network,
    q: {
      fromBlock: number;
      toBlock: number;
      from: string | null;
      to: string | null;
      /** Sender or recipient (Etherscan's `address`). */
      party?: string | null;
      tokens: string[] | null;
      types: TokenType[];
      order: 'asc' | 'desc';
      after: TransferPosition | null;
      limit: number;
      /** Rows passed over first (Etherscan's page × offset, at most 10,000). */
      skip?: number;
    },
  ): Promise<Array<{ position: TransferPosition; item: TokenTransfer }>> {
    const [cmp, dir] = q.order === 'asc' ? ['>', 'ASC'] : ['<', 'DESC'];
    const start =
      q.after ??
      (q.order === 'asc' ? { b: -1, l: -1, i: -1 } : { b: Number.MAX_SAFE_INTEGER, l: 2147483647, i: 2147483647 });
    const party = q.party?.toLowerCase() ?? null;
    const from = q.from?.toLowerCase() ?? null;
    const to = q.to?.toLowerCase() ?? null;
    const tokens = q.tokens === null ? null : [...new Set(q.tokens.map((t) => t.toLowerCase()))];
    const skip = q.skip ?? 0;
    const order = `block_number ${dir}, log_index ${dir}, batch_index ${dir}`;
    const params: unknown[] = [];
    const param = (value: unknown, type: string) => `$${params.push(value)}::${type}`;
    const [network, fromBlock, toBlock, types] = [
      param(net, 'text'),
      param(q.fromBlock, 'bigint'),
      param(q.toBlock, 'bigint'),
      param(q.types, 'text[]'),
    ];
    const position = `(block_number, log_index, batch_index) ${cmp} (${param(start.b, 'bigint')}, ${param(start.l, 'int')}, ${param(start.i, 'int')})`;
    const fromFilter = from === null ? null : `from_address = ${param(from, 'text')}`;
    const toFilter = to === null ? null : `to_address = ${param(to, 'text')}`;
    // Tokens alone are walked one branch a token, with no list to check.
    const byToken = party === null && from === null && to === null && tokens !== null;
    const tokenFilter = tokens === null || byToken ? null : `token = ANY(${param(tokens, 'text[]')})`;
    const reach = param(skip + q.limit, 'int');
    // A branch walks the index of its `driver` column in the page's order, every other filter
    // checked on the way; a filter on the driven column itself (an OR over from and to, a token
    // list) would keep PostgreSQL from that index's order and make it read and sort them all.
    const branch = (driver: string, ...skipped: Array<string | null>) => {
      const filters = [fromFilter, toFilter, tokenFilter].filter((f) => f !== null && !skipped.includes(f));
      return `(SELECT block_number, log_index, batch_index FROM token_transfers
        WHERE network = ${network} AND ${driver} AND block_number BETWEEN ${fromBlock} AND ${toBlock}
          AND type = ANY(${types}) AND ${position} ${filters.map((f) => `AND ${f}`).join(' ')}
        ORDER BY ${order} LIMIT ${reach})`;
    };
    // The page's positions are found first, each branch reading at most skip + limit (Etherscan's
    // page × offset, ≤ 10,000) positions in the page's order; then the page's rows alone are read. A party
    // (Etherscan's address) is two branches, sent and received, which PostgreSQL merges in order,
    // reading skip + limit positions in all, from the two indexes alone (they hold `type`): a
    // self-transfer is in both, its two copies neighbours that DISTINCT ON makes one (a filter
    // `from_address <> party` on the second visited the table for each entry: 13 → 5 ms for page
    // 100 × 100 of a busy account). Otherwise the sender's index, the recipient's, or each token's
    // (their positions disjoint). One OR over from and to made PostgreSQL read and sort every
    // transfer of the address before the OFFSET (BENCHMARKS.md, "Chain-scale index").
    let matching: string;
    if (party !== null) {
      const who = param(party, 'text');
      matching = `${branch(`from_address = ${who}`)} UNION ALL ${branch(`to_address = ${who}`)}`;
    } else if (fromFilter !== null) matching = branch(fromFilter, fromFilter);
    else if (toFilter !== null) matching = branch(toFilter, toFilter);
    else if (byToken) {
      matching = `SELECT k.* FROM unnest(${param(tokens, 'text[]')}) AS w(token)
        CROSS JOIN LATERAL ${branch('token = w.token')} k`;
    } else matching = branch('TRUE');
    // The network is the first parameter ($1), as withTokens wants it.
    const rows: Row[] = await this.ds.query(
      withTokens(
        `SELECT ${TRANSFER_COLUMNS} FROM (
           SELECT ${party !== null ? 'DISTINCT ON (block_number, log_index, batch_index)' : ''} * FROM (${matching}) matching
           ORDER BY ${order} LIMIT ${param(q.limit, 'int')} OFFSET ${param(skip, 'int')}
         ) page
         JOIN token_transfers t USING (block_number, log_index, batch_index)
         WHERE t.network = ${network}
         ORDER BY ${order}`,
        order,
      ),
      params,
    );
    const items = await this.transferItems(net, rows);
    return rows.map((r, i) => ({
      position: { b: Number(r.block_number), l: Number(r.log_index), i: Number(r.batch_index) },
      item: items[i]!,
    }));
  }

  /**
   * Balances of `holder` in ERC-20 tokens (docs/api.md, "JSON-RPC door": `alchemy_getTokenBalances`):
   * the given tokens (0 for a token it holds none of), or every ERC-20 it holds.
   */
  async erc20Balances(
    net: Network,
    holder: string,
    tokens: string[] | null,
  ): Promise<Array<{ token: string; value: string }>> {
    const rows: Row[] = await this.ds.query(
      `SELECT b.token, b.value::text AS value FROM token_balances b
         JOIN tokens k ON k.network = b.network AND k.address = b.token AND k.type = 'ERC-20'
        WHERE b.network = $1 AND b.holder = $2 AND ($3::text[] IS NULL OR b.token = ANY($3::text[]))
          AND b.token_id = $4 AND ($3::text[] IS NOT NULL OR b.value > 0)
        ORDER BY b.token LIMIT 10000`,
      [net, holder.toLowerCase(), tokens?.map((t) => t.toLowerCase()) ?? null, NO_TOKEN_ID],
    );
    const held = new Map(rows.map((r) => [r.token as string, r.value as string]));
    const asked = tokens?.map((t) => t.toLowerCase()) ?? [...held.keys()];
    return asked.map((token) => ({ token: checksum(token), value: held.get(token) ?? '0' }));
  }

  /** Items of transfer rows read through withTokens (their tokens' metadata beside them). */
  private async transferItems(net: Network, rows: Row[]): Promise<TokenTransfer[]> {
    const addresses = [...new Set(rows.map((r) => r.token as string))];
    let tokens: Map<string, { name: string | null; symbol: string | null; decimals: number | null }>;
    if (rows.some((r) => r.token_known === true && r.token_metadata_read !== true)) {
      // A token whose metadata was never read: read it now, then the tokens again.
      await this.readMissingMetadata(net, addresses);
      tokens = new Map((await this.stored(net, addresses)).map((t) => [t.address, t]));
    } else {
      tokens = new Map(
        rows
          .filter((r) => r.token_known === true)
          .map((r) => [
            r.token as string,
            {
              name: (r.token_name as string | null) ?? null,
              symbol: (r.token_symbol as string | null) ?? null,
              decimals: r.token_decimals === null || r.token_decimals === undefined ? null : Number(r.token_decimals),
            },
          ]),
      );
    }
    return rows.map((r) => {
      const address = r.token as string;
      const type = r.type as TokenType;
      const t = tokens.get(address);
      const token: TransferToken = {
        address: checksum(address),
        type,
        name: t?.name ?? null,
        symbol: t?.symbol ?? null,
        decimals: type === 'ERC-20' ? (t?.decimals ?? null) : null,
      };
      const batchIndex = Number(r.batch_index);
      return {
        transactionHash: r.tx_hash as string,
        blockNumber: Number(r.block_number),
        logIndex: Number(r.log_index),
        batchIndex: batchIndex === NO_BATCH_INDEX ? null : batchIndex,
        timestamp: Number(r.timestamp),
        from: checksum(r.from_address as string),
        to: checksum(r.to_address as string),
        token,
        value: type === 'ERC-721' ? null : ((r.value as string | null) ?? null),
        tokenId: type === 'ERC-20' ? null : ((r.token_id as string | null) ?? null),
      };
    });
  }

  private async stored(net: Network, addresses: string[]): Promise<StoredToken[]> {
    if (addresses.length === 0) return [];
    const rows: Row[] = await this.ds.query(
      `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE network = $1 AND address = ANY($2::text[])`,
      [net, addresses],
    );
    return rows.map(toStoredToken);
  }

  /**
   * Reads the metadata of tokens not read yet (of `addresses`, or any when null), at most
   * METADATA_READS_PER_REQUEST of them, and keeps what the node answered.
   */
  private async readMissingMetadata(net: Network, addresses: string[] | null): Promise<void> {
    if (addresses !== null && addresses.length === 0) return;
    const rows: Row[] = await this.ds.query(
      `SELECT address, type FROM tokens
        WHERE network = $1 AND metadata_read_at IS NULL AND ($2::text[] IS NULL OR address = ANY($2::text[]))
        LIMIT $3`,
      [net, addresses, METADATA_READS_PER_REQUEST],
    );
    await Promise.all(
      rows.map(async (r) => {
        const address = r.address as string;
        const meta = await readTokenMetadata(this.call, net, address, r.type === 'ERC-20');
        if (!meta.settled) return;
        await this.ds.query(
          `UPDATE tokens SET name = $3, symbol = $4, decimals = $5, total_supply = $6, metadata_read_at = now()
            WHERE network = $1 AND address = $2`,
          [net, address, meta.name, meta.symbol, meta.decimals, meta.totalSupply],
        );
      }),
    );
  }
}
