import 'reflect-metadata';
import type { DataSource, QueryRunner } from 'typeorm';
import type { Network } from '../src/kernel/network';
import { createLogger } from '../src/kernel/logger';
import { TokensService, writeTokenTransfers, type TokenTransferRow, type TokenType } from '../src/modules/tokens';
import { createMigratedDatabase } from './kit/stack';

// The order and paging of token-transfer lists read by Etherscan's tokentx / tokennfttx /
// token1155tx (page × offset) and alchemy_getAssetTransfers (pageKey) (docs/api.md, "Tokens" and
// "JSON-RPC door"): every page equals the same slice of the matching transfers sorted by (block,
// log index, batch index), ties within a block and a batch included, a self-transfer once, the
// other network's rows never. The rows are written by the tokens module's own writer.

const [A, B, NFT, MULTI] = ['a1', 'b2', 'c3', 'd4'].map((b) => `0x${b.repeat(20)}`) as [string, string, string, string];
const [X, Y, Z] = ['11', '22', '33'].map((b) => `0x${b.repeat(20)}`) as [string, string, string];
const TYPE: Record<string, TokenType> = { [A]: 'ERC-20', [B]: 'ERC-20', [NFT]: 'ERC-721', [MULTI]: 'ERC-1155' };

/** A deterministic chain of transfers: several a block, 1155 batches of three ids, X often sending to itself. */
function chain(network: Network, salt: number): TokenTransferRow[] {
  let seed = 7 + salt;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const parties = [X, X, X, Y, Z];
  const rows: TokenTransferRow[] = [];
  for (let block = 1; block <= 80; block++) {
    const logs = 1 + next(5);
    for (let log = 0; log < logs; log++) {
      const token = [A, A, B, NFT, MULTI][next(5)]!;
      const from = parties[next(5)]!;
      const to = parties[next(5)]!;
      const ids = token === MULTI && next(2) === 0 ? 3 : 1;
      for (let i = 0; i < ids; i++) {
        rows.push({
          block,
          logIndex: log * 3 + next(2),
          batchIndex: ids === 1 ? -1 : i,
          txHash: `0x${network === 'mainnet' ? '0' : 'f'}${block.toString(16).padStart(31, '0')}${log.toString(16).padStart(32, '0')}`,
          token,
          type: TYPE[token]!,
          from,
          to,
          value: token === NFT ? null : String(1 + next(1000)),
          tokenId: token === A || token === B ? null : String(next(4)),
          timestamp: 1_700_000_000 + block,
        });
      }
    }
  }
  return rows;
}

let db: { url: string; drop(): Promise<void> };
let ds: DataSource;
let runner: QueryRunner;
let tokens: TokensService;
const mainnet = chain('mainnet', 0);

beforeAll(async () => {
  ({ db, ds } = await createMigratedDatabase());
  runner = ds.createQueryRunner();
  await runner.connect();
  await writeTokenTransfers(runner, 'mainnet', mainnet);
  // The other network's rows sit at the same positions: none may show on mainnet's pages.
  await writeTokenTransfers(runner, 'testnet', chain('testnet', 1));
  // No node answers here: token metadata stays unread, which these lists do not depend on.
  const noNode = () => Promise.reject(new Error('no node in this test'));
  tokens = new TokensService(
    ds,
    noNode,
    { lastBlock: async () => null, version: () => 0, wait: async () => undefined },
    createLogger('silent'),
  );
}, 60_000);

afterAll(async () => {
  await runner?.release();
  await ds?.destroy();
  await db?.drop();
});

interface Query {
  fromBlock: number;
  toBlock: number;
  from: string | null;
  to: string | null;
  party: string | null;
  tokens: string[] | null;
  types: TokenType[];
  order: 'asc' | 'desc';
}
const ALL: TokenType[] = ['ERC-20', 'ERC-721', 'ERC-1155'];
const base: Query = {
  fromBlock: 0,
  toBlock: 1000,
  from: null,
  to: null,
  party: null,
  tokens: null,
  types: ALL,
  order: 'asc',
};

const key = (r: { block: number; logIndex: number; batchIndex: number; from: string; to: string; token: string }) =>
  `${r.block}/${r.logIndex}/${r.batchIndex} ${r.token.slice(0, 4)} ${r.from.slice(0, 4)}>${r.to.slice(0, 4)}`;

/** The matching mainnet transfers, sorted as the lists promise. */
function expected(q: Query): string[] {
  const sign = q.order === 'asc' ? 1 : -1;
  return mainnet
    .filter(
      (r) =>
        r.block >= q.fromBlock &&
        r.block <= q.toBlock &&
        (q.from === null || r.from === q.from) &&
        (q.to === null || r.to === q.to) &&
        (q.party === null || r.from === q.party || r.to === q.party) &&
        (q.tokens === null || q.tokens.includes(r.token)) &&
        q.types.includes(r.type),
    )
    .sort((a, b) => sign * (a.block - b.block || a.logIndex - b.logIndex || a.batchIndex - b.batchIndex))
    .map(key);
}

const got = (found: Awaited<ReturnType<TokensService['assetTransfers']>>) =>
  found.map(({ item }) =>
    key({
      block: item.blockNumber,
      logIndex: item.logIndex,
      batchIndex: item.batchIndex ?? -1,
      token: item.token.address.toLowerCase(),
      from: item.from.toLowerCase(),
      to: item.to.toLowerCase(),
    }),
  );

/** Every page of `size` by skip (Etherscan's page × offset), one past the end included. */
async function pagesBySkip(q: Query, size: number): Promise<string[][]> {
  const pages: string[][] = [];
  for (let skip = 0; ; skip += size) {
    const found = await tokens.assetTransfers('mainnet', { ...q, after: null, limit: size, skip });
    pages.push(got(found));
    if (found.length === 0) return pages;
  }
}

/** Every page of `size` after the last position of the one before (alchemy's pageKey). */
async function pagesByPosition(q: Query, size: number): Promise<string[][]> {
  const pages: string[][] = [];
  let after = null;
  for (;;) {
    const found = await tokens.assetTransfers('mainnet', { ...q, after, limit: size });
    pages.push(got(found));
    if (found.length === 0) return pages;
    after = found[found.length - 1]!.position;
  }
}

const chunks = (list: string[], size: number): string[][] => {
  const out: string[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return [...out, []];
};

const QUERIES: Array<[string, Query]> = [
  ['an address (Etherscan `address`), every type', { ...base, party: X }],
  ['an address, ERC-20 only, newest first', { ...base, party: X, types: ['ERC-20'], order: 'desc' }],
  ['an address and one token, a block range', { ...base, party: X, tokens: [A], fromBlock: 9, toBlock: 61 }],
  ['an address, ERC-1155 batches (ties in a log)', { ...base, party: X, types: ['ERC-1155'], order: 'desc' }],
  ['a sender', { ...base, from: X, order: 'desc' }],
  ['a recipient, ERC-721', { ...base, to: X, types: ['ERC-721'] }],
  ['sender and recipient the same: self-transfers', { ...base, from: X, to: X }],
  ['two tokens (alchemy `contractAddresses`), newest first', { ...base, tokens: [A, MULTI, A], order: 'desc' }],
  ['one token, a block range', { ...base, tokens: [B], fromBlock: 20, toBlock: 40 }],
  ['no address or token: every transfer', { ...base, fromBlock: 30, toBlock: 70, order: 'desc' }],
];

describe('token transfer lists: order and pages', () => {
  it('the chain has what the pages must get right', () => {
    const self = mainnet.filter((r) => r.from === X && r.to === X).length;
    const batches = mainnet.filter((r) => r.batchIndex === 2).length;
    const tiedBlocks = new Set(mainnet.map((r) => `${r.block}/${r.logIndex}/${r.batchIndex}`)).size;
    expect(self).toBeGreaterThan(20);
    expect(batches).toBeGreaterThan(5);
    expect(tiedBlocks).toBe(mainnet.length);
    expect(mainnet.length).toBeGreaterThan(250);
  });

  it.each(QUERIES)('%s: pages by page × offset are the sorted list cut in order', async (_name, q) => {
    const all = expected(q);
    expect(all.length).toBeGreaterThan(3);
    // Sizes that cut inside blocks and batches, and one page holding everything.
    for (const size of [1, 7, 1000]) expect(await pagesBySkip(q, size)).toEqual(chunks(all, size));
  });

  it.each(QUERIES)('%s: pages after a position are the same list', async (_name, q) => {
    const all = expected(q);
    expect(await pagesByPosition(q, 5)).toEqual(chunks(all, 5));
  });

  it('a self-transfer is listed once for its address', async () => {
    const found = got(await tokens.assetTransfers('mainnet', { ...base, party: X, after: null, limit: 10_000 }));
    const self = found.filter((k) => k.endsWith(`${X.slice(0, 4)}>${X.slice(0, 4)}`));
    expect(self.length).toBe(mainnet.filter((r) => r.from === X && r.to === X).length);
    expect(new Set(found).size).toBe(found.length);
  });
});
