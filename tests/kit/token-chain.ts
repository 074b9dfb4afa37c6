// A token-heavy dev chain: OpenZeppelin ERC-20, ERC-721 and ERC-1155 tokens whose open `moves`
// function runs many transfers, mints and burns in one transaction, and blocks mined by hand with
// three such transactions each. For the token index's kill test and its catch-up benchmark.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HDNodeWallet, Interface } from 'ethers';
import { rpc, rpcBatch } from './json-rpc';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.20;
import "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import "@openzeppelin/contracts/token/ERC721/extensions/ERC721Enumerable.sol";
import "@openzeppelin/contracts/token/ERC1155/extensions/ERC1155Supply.sol";

/** from = 0 mints, to = 0 burns, from = to is a self-transfer; OpenZeppelin's _update emits each. */
contract Heavy20 is ERC20 {
    constructor() ERC20("Heavy Twenty", "HV20") {}
    function moves(address[] calldata from, address[] calldata to, uint256[] calldata values) external {
        for (uint256 i = 0; i < from.length; i++) _update(from[i], to[i], values[i]);
    }
}

/** Moves each id to its new owner from whoever holds it: a mint when nobody does, a burn to 0. */
contract Heavy721 is ERC721Enumerable {
    constructor() ERC721("Heavy Seven", "HV721") {}
    function moves(address[] calldata to, uint256[] calldata ids) external {
        for (uint256 i = 0; i < to.length; i++) _update(to[i], ids[i], address(0));
    }
}

/** One id is a TransferSingle, several a TransferBatch. */
contract Heavy1155 is ERC1155Supply {
    constructor() ERC1155("") {}
    function moves(address[] calldata from, address[] calldata to, uint256[][] calldata ids,
                   uint256[][] calldata values) external {
        for (uint256 i = 0; i < from.length; i++) _update(from[i], to[i], ids[i], values[i]);
    }
}
`;

export const ZERO = '0x0000000000000000000000000000000000000000';
/** anvil's unlocked dev accounts #0..#3: #0 deploys, #1..#3 send one token transaction each per block. */
const SENDERS = Array.from(
  { length: 4 },
  (_, i) =>
    HDNodeWallet.fromPhrase(
      'test test test test test test test test test test test junk',
      undefined,
      `m/44'/60'/0'/0/${i}`,
    ).address,
);
/** Token holders (not senders: the tokens' `moves` is open). */
export const HOLDERS = Array.from({ length: 16 }, (_, i) => `0x${(0xc0de00 + i).toString(16).padStart(40, '0')}`);
/**
 * Most ERC-721 ids held at once: anvil's work per mined block grows with the storage of the
 * contracts the block changes, and every block changes the ERC-721's.
 */
const HELD_721 = 48;
/** The ERC-1155 ids in use. */
export const IDS_1155 = [1n, 2n, 3n, 5n, 8n, 13n];

export interface TokenChain {
  erc20: string;
  erc721: string;
  erc1155: string;
  /** The first block of generated transfers (the ones before deploy and fund the tokens). */
  firstHeavyBlock: number;
  head: number;
}

interface Compiled {
  abi: string[];
  bytecode: string;
}

type Contracts = Record<'Heavy20' | 'Heavy721' | 'Heavy1155', Compiled>;
let compiled: Contracts | null = null;

/**
 * The compiled tokens, from a file of the machine's temporary directory named by a digest of the
 * compiler input, solc's version and OpenZeppelin's: solc (a WebAssembly module) loads and compiles
 * them once per machine instead of once per test file or benchmark.
 */
function compile(): Contracts {
  if (compiled) return compiled;
  const input = JSON.stringify({
    language: 'Solidity',
    sources: { 'Heavy.sol': { content: SOURCE } },
    settings: {
      evmVersion: 'paris',
      optimizer: { enabled: false },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  });
  const version = (pkg: string) =>
    (JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), 'utf8')) as { version: string }).version;
  const digest = createHash('sha256')
    .update(`${input}\n${version('solc')}\n${version('@openzeppelin/contracts')}`)
    .digest('hex');
  const dir = path.join(tmpdir(), `devportal-token-chain-${process.getuid?.() ?? 0}`);
  const file = path.join(dir, `${digest}.json`);
  try {
    compiled = JSON.parse(readFileSync(file, 'utf8')) as Contracts;
    return compiled;
  } catch {
    // not compiled on this machine yet
  }
  compiled = compileWithSolc(input);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(compiled));
    renameSync(partial, file);
  } catch {
    // A cache that cannot be written only costs the next run a compile.
  }
  return compiled;
}

function compileWithSolc(input: string): Contracts {
  // solc has no type declarations; loaded only when the contracts are not in the cache.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require('solc') as { compile(input: string, callbacks: object): string };
  const root = path.dirname(require.resolve('@openzeppelin/contracts/package.json'));
  const out = JSON.parse(
    solc.compile(input, {
      import: (p: string) => {
        const prefix = '@openzeppelin/contracts/';
        if (!p.startsWith(prefix)) return { error: `not found: ${p}` };
        return { contents: readFileSync(path.join(root, p.slice(prefix.length)), 'utf8') };
      },
    }),
  ) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: string[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const of = (name: string): Compiled => {
    const c = out.contracts['Heavy.sol']![name]!;
    return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  };
  return { Heavy20: of('Heavy20'), Heavy721: of('Heavy721'), Heavy1155: of('Heavy1155') };
}

/** ABIs of the three tokens (balanceOf, totalSupply, ...). */
export function tokenInterfaces(): { erc20: Interface; erc721: Interface; erc1155: Interface } {
  const c = compile();
  return {
    erc20: new Interface(c.Heavy20.abi),
    erc721: new Interface(c.Heavy721.abi),
    erc1155: new Interface(c.Heavy1155.abi),
  };
}

const hex = (n: number | bigint) => `0x${n.toString(16)}`;

/** A small deterministic generator (mulberry32): the same chain from the same seed. */
function random(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n) as number;
  };
}

// The ABI encoding of the tokens' `moves` calls, written out: the generator makes three a block,
// and ethers' general encoder is most of its own CPU. Checked against ethers on the first block.
const word = (n: bigint | number) => n.toString(16).padStart(64, '0');
/** Dynamic values already encoded, as a tuple: their offsets, then the values. */
const dynamicTuple = (values: string[]) => {
  let offset = values.length * 32;
  const head = values.map((v) => {
    const w = word(offset);
    offset += v.length / 2;
    return w;
  });
  return head.join('') + values.join('');
};
const addressArray = (a: string[]) =>
  word(a.length) + a.map((x) => x.slice(2).toLowerCase().padStart(64, '0')).join('');
const uintArray = (a: bigint[]) => word(a.length) + a.map(word).join('');
const uintArrays = (a: bigint[][]) => word(a.length) + dynamicTuple(a.map(uintArray));
/** A call whose arguments are all dynamic (arrays). */
const callData = (selector: string, args: string[]) => selector + dynamicTuple(args);

async function deploy(url: string, bytecode: string): Promise<string> {
  const hash = (await rpc(url, 'eth_sendTransaction', [
    { from: SENDERS[0], data: bytecode, gas: hex(6_000_000) },
  ])) as string;
  await rpc(url, 'evm_mine');
  const receipt = (await rpc(url, 'eth_getTransactionReceipt', [hash])) as { contractAddress: string; status: string };
  if (receipt.status !== '0x1') throw new Error('token deploy failed');
  return receipt.contractAddress.toLowerCase();
}

/**
 * On an anvil node that mines only when asked (evm_mine): deploys the three tokens, funds every
 * holder (ERC-20 and every ERC-1155 id, by mints), then mines `blocks` blocks of three transactions,
 * one per token: ERC-20 transfers with a mint, a burn or a self-transfer among them, ERC-721 mints,
 * moves and burns, an ERC-1155 TransferSingle and a TransferBatch (mints and burns among them).
 * Every transfer is within what its holder has, so no transaction reverts (the log count at the end shows it).
 */
export async function generateTokenChain(
  url: string,
  blocks: number,
  opts: { seed?: number; onProgress?: (done: number) => void } = {},
): Promise<TokenChain> {
  const c = compile();
  const i20 = new Interface(c.Heavy20.abi);
  const i721 = new Interface(c.Heavy721.abi);
  const i1155 = new Interface(c.Heavy1155.abi);
  const erc20 = await deploy(url, c.Heavy20.bytecode);
  const erc721 = await deploy(url, c.Heavy721.bytecode);
  const erc1155 = await deploy(url, c.Heavy1155.bytecode);

  // Funding: every holder gets 10^12 of the ERC-20 and 10^6 of each ERC-1155 id (one batch mint each).
  const fund = await rpcBatch(url, [
    [
      'eth_sendTransaction',
      [
        {
          from: SENDERS[1],
          to: erc20,
          gas: hex(3_000_000),
          data: i20.encodeFunctionData('moves', [HOLDERS.map(() => ZERO), HOLDERS, HOLDERS.map(() => 10n ** 12n)]),
        },
      ],
    ],
    [
      'eth_sendTransaction',
      [
        {
          from: SENDERS[3],
          to: erc1155,
          gas: hex(12_000_000),
          data: i1155.encodeFunctionData('moves', [
            HOLDERS.map(() => ZERO),
            HOLDERS,
            HOLDERS.map(() => IDS_1155),
            HOLDERS.map(() => IDS_1155.map(() => 10n ** 6n)),
          ]),
        },
      ],
    ],
  ]);
  await rpc(url, 'evm_mine');
  for (const hash of fund) {
    const r = (await rpc(url, 'eth_getTransactionReceipt', [hash])) as { status: string };
    if (r.status !== '0x1') throw new Error('token funding failed');
  }
  const firstHeavyBlock = Number(BigInt((await rpc(url, 'eth_blockNumber')) as string)) + 1;

  const selector = (i: Interface) => i.getFunction('moves')!.selector;
  const [moves20, moves721, moves1155] = [selector(i20), selector(i721), selector(i1155)];
  const rand = random(opts.seed ?? 30);
  const holder = () => HOLDERS[rand(HOLDERS.length)]!;
  // ERC-721 owners as the generator made them (ids from 1), to mint new ids and burn held ones.
  const owners = new Map<bigint, string>();
  let nextId = 1n;
  for (let b = 0; b < blocks; b++) {
    // ERC-20: four items, each block one of them a mint, a burn or a self-transfer in turn.
    const from: string[] = [];
    const to: string[] = [];
    const values: bigint[] = [];
    for (let k = 0; k < 4; k++) {
      let f = holder();
      let t = holder();
      if (k === 0 && b % 3 === 0) f = ZERO;
      else if (k === 0 && b % 3 === 1) t = ZERO;
      else if (k === 0) t = f;
      from.push(f);
      to.push(t);
      values.push(BigInt(1 + rand(1_000)));
    }
    // ERC-721: two items: a mint (a burn of a held id once HELD_721 are held), then a move or
    // (every fourth block) a burn of a held id.
    const held = [...owners.keys()];
    const ids721: bigint[] = [];
    const to721: string[] = [];
    if (held.length < HELD_721) {
      ids721.push(nextId);
      to721.push(holder());
      owners.set(nextId, to721[0]!);
      nextId++;
    } else {
      const [id] = held.splice(rand(held.length), 1);
      ids721.push(id!);
      to721.push(ZERO);
      owners.delete(id!);
    }
    if (held.length > 0) {
      const id = held[rand(held.length)]!;
      const t = b % 4 === 3 ? ZERO : holder();
      ids721.push(id);
      to721.push(t);
      if (t === ZERO) owners.delete(id);
      else owners.set(id, t);
    }
    // ERC-1155: a TransferSingle (a mint every fifth block), then a TransferBatch of three ids (a burn every seventh).
    const single = IDS_1155[rand(IDS_1155.length)]!;
    const batchStart = rand(IDS_1155.length - 2);
    const batchIds = IDS_1155.slice(batchStart, batchStart + 3);
    const f1155 = [b % 5 === 0 ? ZERO : holder(), holder()];
    const t1155 = [holder(), b % 7 === 0 ? ZERO : holder()];
    const ids1155 = [[single], batchIds];
    const values1155 = [[BigInt(1 + rand(5))], batchIds.map(() => BigInt(1 + rand(5)))];
    const data = [
      callData(moves20, [addressArray(from), addressArray(to), uintArray(values)]),
      callData(moves721, [addressArray(to721), uintArray(ids721)]),
      callData(moves1155, [addressArray(f1155), addressArray(t1155), uintArrays(ids1155), uintArrays(values1155)]),
    ];
    if (b === 0) {
      const expected = [
        i20.encodeFunctionData('moves', [from, to, values]),
        i721.encodeFunctionData('moves', [to721, ids721]),
        i1155.encodeFunctionData('moves', [f1155, t1155, ids1155, values1155]),
      ];
      if (data.some((d, k) => d !== expected[k])) throw new Error('token chain: calldata differs from ethers');
    }
    await rpcBatch(url, [
      ['eth_sendTransaction', [{ from: SENDERS[1], to: erc20, gas: hex(400_000), data: data[0] }]],
      ['eth_sendTransaction', [{ from: SENDERS[2], to: erc721, gas: hex(600_000), data: data[1] }]],
      ['eth_sendTransaction', [{ from: SENDERS[3], to: erc1155, gas: hex(600_000), data: data[2] }]],
    ]);
    // The mine is its own request: anvil answers a batch's entries concurrently.
    await rpc(url, 'evm_mine');
    if ((b + 1) % 500 === 0) opts.onProgress?.(b + 1);
  }
  const head = Number(BigInt((await rpc(url, 'eth_blockNumber')) as string));
  const logs = (await rpc(url, 'eth_getLogs', [
    { fromBlock: hex(firstHeavyBlock), toBlock: hex(head), address: [erc20, erc721, erc1155] },
  ])) as unknown[];
  // 4 ERC-20, 2 ERC-721 (1 in the first block), 2 ERC-1155 logs per block.
  const expected = blocks * 8 - (blocks > 0 ? 1 : 0);
  if (logs.length !== expected) throw new Error(`token chain: ${logs.length} logs where ${expected} were sent`);
  return { erc20, erc721, erc1155, firstHeavyBlock, head };
}

/** What indexVersusChain reads PostgreSQL with: a pg Client or a TypeORM DataSource. */
export interface SqlReader {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

// Rows are read field by field and compared as strings.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = Record<string, any>;

const rowsOf = async (db: SqlReader, text: string, params: unknown[] = []): Promise<Row[]> => {
  const r = (await db.query(text, params)) as Row[] | { rows: Row[] };
  return Array.isArray(r) ? r : r.rows;
};

/** A transfer item as a comparable string: block, log index, batch index, token, from, to, value, id. */
const itemKey = (
  b: number,
  log: number,
  batch: number,
  token: string,
  from: string,
  to: string,
  value: string,
  id: string,
) => `${b}|${log}|${batch}|${token}|${from}|${to}|${value}|${id}`;

/** The chain's transfer items up to block `at`, decoded from its logs with the tokens' own ABIs. */
export async function chainTransferItems(url: string, chain: TokenChain, at: number): Promise<string[]> {
  const abi = tokenInterfaces();
  const ifaceOf: Record<string, Interface> = {
    [chain.erc20]: abi.erc20,
    [chain.erc721]: abi.erc721,
    [chain.erc1155]: abi.erc1155,
  };
  const out: string[] = [];
  // In ranges, as a node with a cap on eth_getLogs would be asked.
  for (let from = 0; from <= at; from += 2_000) {
    const logs = (await rpc(url, 'eth_getLogs', [
      {
        fromBlock: hex(from),
        toBlock: hex(Math.min(at, from + 1_999)),
        address: [chain.erc20, chain.erc721, chain.erc1155],
      },
    ])) as Array<{ address: string; topics: string[]; data: string; blockNumber: string; logIndex: string }>;
    for (const l of logs) {
      const token = l.address.toLowerCase();
      const parsed = ifaceOf[token]!.parseLog(l);
      if (!parsed) continue;
      const b = Number(BigInt(l.blockNumber));
      const i = Number(BigInt(l.logIndex));
      const a = parsed.args;
      const f = String(a.from).toLowerCase();
      const t = String(a.to).toLowerCase();
      if (parsed.name === 'Transfer' && token === chain.erc20)
        out.push(itemKey(b, i, -1, token, f, t, String(a.value), ''));
      else if (parsed.name === 'Transfer') out.push(itemKey(b, i, -1, token, f, t, '', String(a.tokenId)));
      else if (parsed.name === 'TransferSingle')
        out.push(itemKey(b, i, -1, token, f, t, String(a.value), String(a.id)));
      else if (parsed.name === 'TransferBatch') {
        // args[4] is `values` (Result has a method of that name).
        const values = a[4] as bigint[];
        (a.ids as bigint[]).forEach((id, k) => out.push(itemKey(b, i, k, token, f, t, String(values[k]), String(id))));
      }
    }
  }
  return out;
}

const perBlock = (items: string[]): Map<number, number> => {
  const m = new Map<number, number>();
  for (const k of items) {
    const b = Number(k.slice(0, k.indexOf('|')));
    m.set(b, (m.get(b) ?? 0) + 1);
  }
  return m;
};

/**
 * Compares the index of `network` with the chain at block `at` and returns every difference found
 * (none when the index is exact): the index holds blocks 0..at and nothing after; every transfer item
 * of the chain once and no other (also counted per block); every balance row equal to balanceOf
 * there, none missing or extra; the sums of balances equal totalSupply; each token's transfer and
 * holder counters equal what the chain shows (ERC-1155: a holder once, whatever its ids).
 */
export async function indexVersusChain(
  db: SqlReader,
  url: string,
  chain: TokenChain,
  at: number,
  network = 'mainnet',
): Promise<string[]> {
  const diffs: string[] = [];
  const expectSame = (what: string, indexed: unknown, onChain: unknown) => {
    if (JSON.stringify(indexed) !== JSON.stringify(onChain))
      diffs.push(`${what}: index ${JSON.stringify(indexed)}, chain ${JSON.stringify(onChain)}`);
  };
  const [state] = await rowsOf(db, `SELECT last_block, halted_reason FROM explorer_index_state WHERE network = $1`, [
    network,
  ]);
  expectSame(
    'index state',
    { last: Number(state?.last_block), halted: state?.halted_reason ?? null },
    { last: at, halted: null },
  );
  const [rows] = await rowsOf(
    db,
    `SELECT (SELECT count(*) FROM explorer_blocks WHERE network = $1)::int AS blocks,
            (SELECT min(number) FROM explorer_blocks WHERE network = $1)::int AS first,
            (SELECT max(number) FROM explorer_blocks WHERE network = $1)::int AS last,
            (SELECT count(*) FROM explorer_transactions WHERE network = $1 AND block_number > $2)::int AS txs_after,
            (SELECT count(*) FROM token_transfers WHERE network = $1 AND block_number > $2)::int AS transfers_after,
            (SELECT count(*) FROM explorer_logs WHERE network = $1 AND block_number <= $2)::int AS logs,
            (SELECT count(*) FROM explorer_logs WHERE network = $1 AND block_number > $2)::int AS logs_after`,
    [network, at],
  );
  let chainLogs = 0;
  for (let from = 0; from <= at; from += 2_000) {
    chainLogs += (
      (await rpc(url, 'eth_getLogs', [{ fromBlock: hex(from), toBlock: hex(Math.min(at, from + 1_999)) }])) as unknown[]
    ).length;
  }
  expectSame('blocks, and rows after the last', rows, {
    blocks: at + 1,
    first: 0,
    last: at,
    txs_after: 0,
    transfers_after: 0,
    logs: chainLogs,
    logs_after: 0,
  });

  const onChain = await chainTransferItems(url, chain, at);
  const indexed = (
    await rowsOf(
      db,
      `SELECT block_number, log_index, batch_index, token, from_address, to_address, coalesce(value::text, '') AS value,
              coalesce(token_id::text, '') AS token_id
         FROM token_transfers WHERE network = $1`,
      [network],
    )
  ).map((r) =>
    itemKey(
      Number(r.block_number),
      r.log_index,
      r.batch_index,
      r.token,
      r.from_address,
      r.to_address,
      r.value,
      r.token_id,
    ),
  );
  const chainSet = new Set(onChain);
  const indexSet = new Set(indexed);
  if (indexSet.size !== indexed.length) diffs.push(`${indexed.length - indexSet.size} transfer items repeated`);
  const missing = onChain.filter((k) => !indexSet.has(k));
  const extra = indexed.filter((k) => !chainSet.has(k));
  if (missing.length > 0)
    diffs.push(`${missing.length} transfer items missing, e.g. ${missing.slice(0, 3).join(', ')}`);
  if (extra.length > 0)
    diffs.push(`${extra.length} transfer items not on the chain, e.g. ${extra.slice(0, 3).join(', ')}`);
  const countsIndexed = perBlock(indexed);
  const countsChain = perBlock(onChain);
  const blocksOff = [...new Set([...countsIndexed.keys(), ...countsChain.keys()])].filter(
    (b) => countsIndexed.get(b) !== countsChain.get(b),
  );
  if (blocksOff.length > 0)
    diffs.push(`transfer counts differ in ${blocksOff.length} blocks, e.g. ${blocksOff.slice(0, 5).join(', ')}`);

  // Balances and totals at block `at`, in one batch of eth_calls.
  const abi = tokenInterfaces();
  const calls: Array<{ key: string; to: string; data: string }> = [];
  for (const h of HOLDERS) {
    calls.push({
      key: `${chain.erc20}|${h}|-1`,
      to: chain.erc20,
      data: abi.erc20.encodeFunctionData('balanceOf', [h]),
    });
    calls.push({
      key: `${chain.erc721}|${h}|-1`,
      to: chain.erc721,
      data: abi.erc721.encodeFunctionData('balanceOf', [h]),
    });
    for (const id of IDS_1155) {
      const data = abi.erc1155.encodeFunctionData('balanceOf', [h, id]);
      calls.push({ key: `${chain.erc1155}|${h}|${id}`, to: chain.erc1155, data });
    }
  }
  calls.push({ key: `total|${chain.erc20}|-1`, to: chain.erc20, data: abi.erc20.encodeFunctionData('totalSupply') });
  calls.push({ key: `total|${chain.erc721}|-1`, to: chain.erc721, data: abi.erc721.encodeFunctionData('totalSupply') });
  for (const id of IDS_1155) {
    const data = abi.erc1155.encodeFunctionData('totalSupply(uint256)', [id]);
    calls.push({ key: `total|${chain.erc1155}|${id}`, to: chain.erc1155, data });
  }
  const answers = await rpcBatch(
    url,
    calls.map((c) => ['eth_call', [{ to: c.to, data: c.data }, hex(at)]]),
  );
  const chainValue = new Map(calls.map((c, i) => [c.key, BigInt(answers[i] as string)]));
  const chainBalances = [...chainValue.entries()]
    .filter(([k, v]) => !k.startsWith('total|') && v > 0n)
    .map(([k, v]) => `${k}=${v}`)
    .sort();
  const indexBalances = (
    await rowsOf(
      db,
      `SELECT token, holder, token_id::text AS id, value::text AS value FROM token_balances WHERE network = $1`,
      [network],
    )
  )
    .map((r) => `${r.token}|${r.holder}|${r.id}=${r.value}`)
    .sort();
  const chainBalanceSet = new Set(chainBalances);
  const indexBalanceSet = new Set(indexBalances);
  const wrong = indexBalances.filter((k) => !chainBalanceSet.has(k));
  const absent = chainBalances.filter((k) => !indexBalanceSet.has(k));
  if (wrong.length > 0)
    diffs.push(`${wrong.length} balances not as on the chain, e.g. ${wrong.slice(0, 3).join(', ')}`);
  if (absent.length > 0)
    diffs.push(`${absent.length} balances of the chain missing, e.g. ${absent.slice(0, 3).join(', ')}`);

  const sums = (
    await rowsOf(
      db,
      `SELECT token, CASE WHEN token = $2 THEN token_id::text ELSE '-1' END AS id, sum(value)::text AS total
         FROM token_balances WHERE network = $1 GROUP BY 1, 2`,
      [network, chain.erc1155],
    )
  )
    .map((r) => `total|${r.token}|${r.id}=${r.total}`)
    .sort();
  const totals = [...chainValue.entries()]
    .filter(([k, v]) => k.startsWith('total|') && v > 0n)
    .map(([k, v]) => `${k}=${v}`)
    .sort();
  expectSame('totals', sums, totals);

  const counters = (
    await rowsOf(
      db,
      `SELECT address, transfer_count::int AS t, holder_count::int AS h FROM tokens WHERE network = $1 ORDER BY address`,
      [network],
    )
  ).map((r) => `${r.address} transfers=${r.t} holders=${r.h}`);
  const tokenOf = (k: string) => k.split('|')[3];
  const expected = [chain.erc20, chain.erc721, chain.erc1155]
    .filter((token) => onChain.some((k) => tokenOf(k) === token))
    .sort()
    .map((token) => {
      const transfers = onChain.filter((k) => tokenOf(k) === token).length;
      const holders = new Set(chainBalances.filter((k) => k.startsWith(`${token}|`)).map((k) => k.split('|')[1]));
      return `${token} transfers=${transfers} holders=${holders.size}`;
    });
  expectSame('token counters', counters, expected);
  return diffs;
}
