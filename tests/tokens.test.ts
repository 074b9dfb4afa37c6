/* eslint-disable @typescript-eslint/no-explicit-any -- responses are asserted field by field */
import { Contract, ContractFactory, JsonRpcProvider, NonceManager, Wallet, getAddress } from 'ethers';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { ANVIL_KEYS, providerOf } from './kit/chain';
import { client, type Client } from './kit/http';
import { login } from './kit/login';
import { sqlRows, startStack, type Stack } from './kit/stack';

/** OpenZeppelin tokens with open mint and burn (test contracts), and a token answering garbage. */
const SOURCES = {
  Tok20: `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
import "@openzeppelin/contracts/token/ERC20/ERC20.sol";
contract Tok20 is ERC20 {
    constructor() ERC20("Tokens Twenty", "TWT") {}
    function mint(address to, uint256 amount) external { _mint(to, amount); }
    function burn(address from, uint256 amount) external { _burn(from, amount); }
}`,
  Tok721: `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
import "@openzeppelin/contracts/token/ERC721/ERC721.sol";
contract Tok721 is ERC721 {
    constructor() ERC721("Tokens Seven", "TSN") {}
    function mint(address to, uint256 id) external { _mint(to, id); }
    function burn(uint256 id) external { _burn(id); }
}`,
  Tok1155: `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
import "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
contract Tok1155 is ERC1155 {
    constructor() ERC1155("") {}
    function mint(address to, uint256 id, uint256 amount) external { _mint(to, id, amount, ""); }
    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata amounts) external {
        _mintBatch(to, ids, amounts, "");
    }
    function burn(address from, uint256 id, uint256 amount) external { _burn(from, id, amount); }
}`,
  Garbage: `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Garbage {
    event Transfer(address indexed from, address indexed to, uint256 value);
    function poke(address to, uint256 value) external { emit Transfer(address(0), to, value); }
    /** A Transfer with 3 topics and two words of data: not an ERC-20 layout. */
    function malformed(address to) external {
        bytes32 topic = keccak256("Transfer(address,address,uint256)");
        assembly {
            mstore(0, 1)
            mstore(32, 2)
            log3(0, 64, topic, 0, to)
        }
    }
    function name() external pure returns (string memory) { return string(new bytes(300)); }
    function symbol() external pure returns (string memory) { revert("no symbol"); }
    function decimals() external pure returns (uint256) { return 1000; }
    function totalSupply() external pure returns (bytes memory) { return new bytes(5000); }
}`,
};

let stack: Stack;
let api: Client;
let provider: JsonRpcProvider;
let admin: NonceManager;
const A = Wallet.createRandom().address;
const B = Wallet.createRandom().address;
const C = Wallet.createRandom().address;
let t20: Contract;
let t721: Contract;
let t1155: Contract;
let garbage: Contract;
let developerToken: string;
const IDS_1155 = [1n, 2n, 3n, 7n, 9n];

async function deploy(name: keyof typeof SOURCES): Promise<Contract> {
  // The developers' lane (its 20 s limit): the anonymous lane's 5 s may not fit a busy machine.
  const compiled = await api.post(
    '/api/devportal/contracts/compile',
    { source: SOURCES[name] },
    { token: developerToken },
  );
  expect(compiled.status).toBe(201);
  const c = compiled.body.contracts.find((x: any) => x.name === name);
  const contract = await new ContractFactory(c.abi, c.bytecode, admin).deploy();
  await contract.waitForDeployment();
  return contract as Contract;
}

/** Sends a call from `admin` and returns its block after waiting for it to be indexed. */
async function send(contract: Contract, method: string, ...args: unknown[]): Promise<{ block: number; hash: string }> {
  const tx = await (contract as any)[method](...args);
  const receipt = await tx.wait();
  expect(receipt.status).toBe(1);
  await indexed(receipt.blockNumber);
  return { block: receipt.blockNumber, hash: tx.hash };
}

async function indexed(block: number): Promise<number> {
  for (let i = 0; i < 300; i++) {
    const status = await api.get('/api/explorer/network-status?network=testnet');
    const last = status.body.indexer?.lastIndexedBlock ?? -1;
    if (last >= block) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`block ${block} was not indexed`);
}

/** Every holder's indexed balances equal balanceOf at the indexed block, for the three tokens. */
async function expectBalancesMatchChain(): Promise<void> {
  const status = await api.get('/api/explorer/network-status?network=testnet');
  const at = status.body.indexer.lastIndexedBlock as number;
  const holders = [A, B, C, await admin.getAddress()];
  for (const holder of holders) {
    const res = await api.get(`/api/explorer/address/${holder}/token-balances?network=testnet`);
    expect(res.status).toBe(200);
    const items = res.body.items as Array<{ token: string; value: string; tokenId?: string }>;
    const indexedOf = (token: string, id?: bigint) =>
      BigInt(
        items.find((i) => i.token === token && (id === undefined ? i.tokenId === undefined : i.tokenId === String(id)))
          ?.value ?? '0',
      );
    const blockTag = at;
    expect(indexedOf(await t20.getAddress())).toBe(await t20.balanceOf!(holder, { blockTag }));
    expect(indexedOf(await t721.getAddress())).toBe(await t721.balanceOf!(holder, { blockTag }));
    for (const id of IDS_1155) {
      expect(indexedOf(await t1155.getAddress(), id)).toBe(await t1155.balanceOf!(holder, id, { blockTag }));
    }
    // No zero balance is listed, nothing of another token.
    for (const item of items) expect(BigInt(item.value)).toBeGreaterThan(0n);
  }
}

beforeAll(async () => {
  stack = await startStack();
  api = client(stack.url);
  provider = providerOf(stack, 'testnet');
  admin = new NonceManager(new Wallet(ANVIL_KEYS[1]!, provider));
  developerToken = (await login(api, stack.ca)).token;
  t20 = await deploy('Tok20');
  t721 = await deploy('Tok721');
  t1155 = await deploy('Tok1155');
  garbage = await deploy('Garbage');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('ERC-20', () => {
  it('indexes mints, transfers, self-transfers and burns; approvals are not transfers; balances equal balanceOf', async () => {
    const token = await t20.getAddress();
    const mint = await send(t20, 'mint', A, 1000n);
    await expectBalancesMatchChain();
    // A transfers need A's key: move from admin instead, who gets a mint of its own.
    const me = await admin.getAddress();
    await send(t20, 'mint', me, 500n);
    const transfer = await send(t20, 'transfer', B, 300n);
    await expectBalancesMatchChain();
    const self = await send(t20, 'transfer', me, 50n);
    await send(t20, 'burn', A, 100n);
    await expectBalancesMatchChain();
    await send(t20, 'approve', C, 77n);
    await expectBalancesMatchChain();

    const list = await api.get(`/api/explorer/address/${me}/token-transfers?network=testnet`);
    expect(list.status).toBe(200);
    // Newest first; the self-transfer once; the approval is not there.
    expect(list.body.items.map((i: any) => i.transactionHash)).toEqual([self.hash, transfer.hash, expect.any(String)]);
    expect(list.body.items[1]).toEqual({
      transactionHash: transfer.hash,
      blockNumber: transfer.block,
      logIndex: expect.any(Number),
      timestamp: expect.any(Number),
      from: me,
      to: B,
      token: { address: token, type: 'ERC-20', name: 'Tokens Twenty', symbol: 'TWT', decimals: 18 },
      value: '300',
    });
    expect(list.body.nextCursor).toBeNull();
    const ins = await api.get(`/api/explorer/address/${me}/token-transfers?network=testnet&direction=in`);
    expect(ins.body.items.map((i: any) => i.transactionHash)).toEqual([self.hash, expect.any(String)]);
    const outs = await api.get(`/api/explorer/address/${me}/token-transfers?network=testnet&direction=out`);
    expect(outs.body.items.map((i: any) => i.transactionHash)).toEqual([self.hash, transfer.hash]);

    // A's list: the burn (to the zero address) and the mint (from it).
    const ofA = await api.get(`/api/explorer/address/${A}/token-transfers?network=testnet&limit=1`);
    expect(ofA.body.items).toHaveLength(1);
    expect(ofA.body.items[0]).toMatchObject({ from: A, to: getAddress(`0x${'0'.repeat(40)}`), value: '100' });
    const next = await api.get(
      `/api/explorer/address/${A}/token-transfers?network=testnet&limit=1&cursor=${ofA.body.nextCursor}`,
    );
    expect(next.body.items[0]).toMatchObject({ transactionHash: mint.hash, value: '1000' });
    expect(next.body.nextCursor).toBeNull();

    const info = await api.get(`/api/explorer/token/${token.toLowerCase()}?network=testnet`);
    expect(info.body).toEqual({
      found: true,
      token: {
        address: token,
        type: 'ERC-20',
        name: 'Tokens Twenty',
        symbol: 'TWT',
        decimals: 18,
        totalSupply: String(await t20.totalSupply!()),
        holderCount: 3,
        transferCount: 5,
      },
    });
    const holders = await api.get(`/api/explorer/token/${token}/holders?network=testnet`);
    expect(holders.body).toEqual({
      items: [
        { address: A, value: '900' },
        { address: me, value: '200' },
        { address: B, value: '300' },
      ].sort((x, y) => Number(BigInt(y.value) - BigInt(x.value))),
      nextCursor: null,
    });
    const page1 = await api.get(`/api/explorer/token/${token}/holders?network=testnet&limit=2`);
    const page2 = await api.get(
      `/api/explorer/token/${token}/holders?network=testnet&limit=2&cursor=${page1.body.nextCursor}`,
    );
    expect([...page1.body.items, ...page2.body.items]).toEqual(holders.body.items);

    const transfers = await api.get(`/api/explorer/token/${token}/transfers?network=testnet`);
    expect(transfers.body.items).toHaveLength(5);

    const tx = await api.get(`/api/explorer/tx/${transfer.hash}?network=testnet`);
    expect(tx.body.transaction.tokenTransfers).toEqual([list.body.items[1]]);

    const search = await api.get('/api/explorer/search?network=testnet&q=twt');
    expect(search.body.results).toContainEqual({
      type: 'token',
      address: token,
      name: 'Tokens Twenty',
      symbol: 'TWT',
      network: 'testnet',
    });
  }, 120_000);
});

describe('ERC-721', () => {
  it('counts tokens held; mints, transfers, self-transfers and burns match balanceOf', async () => {
    const me = await admin.getAddress();
    const token = await t721.getAddress();
    await send(t721, 'mint', me, 1n);
    await send(t721, 'mint', me, 2n);
    await send(t721, 'mint', A, 3n);
    await expectBalancesMatchChain();
    const moved = await send(t721, 'transferFrom', me, B, 1n);
    await send(t721, 'transferFrom', me, me, 2n);
    await send(t721, 'approve', C, 2n);
    await send(t721, 'burn', 3n);
    await expectBalancesMatchChain();
    const list = await api.get(`/api/explorer/address/${B}/token-transfers?network=testnet&type=ERC-721`);
    expect(list.body.items).toEqual([
      {
        transactionHash: moved.hash,
        blockNumber: moved.block,
        logIndex: expect.any(Number),
        timestamp: expect.any(Number),
        from: me,
        to: B,
        token: { address: token, type: 'ERC-721', name: 'Tokens Seven', symbol: 'TSN', decimals: null },
        tokenId: '1',
      },
    ]);
    const info = await api.get(`/api/explorer/token/${token}?network=testnet`);
    expect(info.body.token).toMatchObject({ type: 'ERC-721', holderCount: 2, transferCount: 6, decimals: null });
  }, 120_000);
});

describe('ERC-1155', () => {
  it('indexes single and batch transfers (one item per id) and burns; balances per id match balanceOf', async () => {
    const me = await admin.getAddress();
    const token = await t1155.getAddress();
    await send(t1155, 'mint', me, 7n, 10n);
    const batch = await send(t1155, 'mintBatch', me, [1n, 2n, 3n], [5n, 6n, 7n]);
    await expectBalancesMatchChain();
    const moved = await send(t1155, 'safeBatchTransferFrom', me, B, [1n, 2n], [2n, 3n], '0x');
    await send(t1155, 'setApprovalForAll', C, true);
    await send(t1155, 'burn', me, 7n, 4n);
    await send(t1155, 'safeTransferFrom', me, me, 3n, 1n, '0x');
    await expectBalancesMatchChain();

    const list = await api.get(`/api/explorer/address/${B}/token-transfers?network=testnet&token=${token}`);
    expect(list.body.items).toEqual(
      [1, 0].map((i) => ({
        transactionHash: moved.hash,
        blockNumber: moved.block,
        logIndex: expect.any(Number),
        batchIndex: i,
        timestamp: expect.any(Number),
        from: me,
        to: B,
        token: { address: token, type: 'ERC-1155', name: null, symbol: null, decimals: null },
        value: ['2', '3'][i],
        tokenId: ['1', '2'][i],
      })),
    );
    const tx = await api.get(`/api/explorer/tx/${batch.hash}?network=testnet`);
    expect(tx.body.transaction.tokenTransfers.map((t: any) => [t.tokenId, t.value, t.batchIndex])).toEqual([
      ['1', '5', 0],
      ['2', '6', 1],
      ['3', '7', 2],
    ]);
    const balances = await api.get(`/api/explorer/address/${B}/token-balances?network=testnet`);
    expect(balances.body.items.filter((i: any) => i.token === token)).toEqual([
      { token, tokenId: '1', value: '2' },
      { token, tokenId: '2', value: '3' },
    ]);
    // Holders by value as numbers (10 before 7), one item per holder and id.
    await send(t1155, 'mint', A, 9n, 10n);
    await expectBalancesMatchChain();
    const holders = await api.get(`/api/explorer/token/${token}/holders?network=testnet`);
    // Ties (value 3) come in holder order, and the holders are random addresses.
    expect(holders.body.items.map((h: any) => h.value)).toEqual(['10', '7', '6', '3', '3', '3', '2']);
    expect(holders.body.items.map((h: any) => `${h.value}/${h.tokenId}`).sort()).toEqual(
      ['10/9', '7/3', '6/7', '3/2', '3/2', '3/1', '2/1'].sort(),
    );
    const info = await api.get(`/api/explorer/token/${token}?network=testnet`);
    // Seven holder-and-id items, three holders (A, me and B): a holder counts once whatever its ids.
    expect(info.body.token).toMatchObject({ type: 'ERC-1155', transferCount: 9, holderCount: 3 });
    const tokens = await api.get('/api/explorer/tokens?network=testnet&type=ERC-1155');
    expect(tokens.body.items.map((t: any) => t.address)).toEqual([token]);
  }, 120_000);
});

describe('a lost dev chain', () => {
  it('undoes the token rows of the lost blocks: balances equal the chain again', async () => {
    const me = await admin.getAddress();
    const snapshot = await provider.send('evm_snapshot', []);
    await send(t20, 'transfer', C, 11n);
    await send(t1155, 'safeBatchTransferFrom', me, C, [3n, 7n], [1n, 1n], '0x');
    const before = await api.get(`/api/explorer/address/${C}/token-balances?network=testnet`);
    expect(before.body.items).toHaveLength(3);
    await provider.send('evm_revert', [snapshot]);
    admin.reset();
    // Mined anew: the index finds the chain behind it, forgets the lost blocks and follows.
    const again = await send(t20, 'transfer', A, 1n);
    for (let i = 0; i < 100; i++) {
      const res = await api.get(`/api/explorer/address/${C}/token-balances?network=testnet`);
      if (res.body.items.length === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await indexed(again.block);
    await expectBalancesMatchChain();
    const ofC = await api.get(`/api/explorer/address/${C}/token-transfers?network=testnet`);
    expect(ofC.body.items).toEqual([]);
  }, 120_000);
});

describe('hostile tokens', () => {
  it('gives a token answering garbage null metadata, and skips a malformed Transfer without failing the block', async () => {
    const token = await garbage.getAddress();
    const poke = await send(garbage, 'poke', A, 5n);
    const bad = await send(garbage, 'malformed', A);
    const info = await api.get(`/api/explorer/token/${token}?network=testnet`);
    expect(info.body).toEqual({
      found: true,
      token: {
        address: token,
        type: 'ERC-20',
        name: null,
        symbol: null,
        decimals: null,
        totalSupply: null,
        holderCount: 1,
        transferCount: 1,
      },
    });
    const list = await api.get(`/api/explorer/address/${A}/token-transfers?network=testnet&token=${token}`);
    expect(list.body.items.map((i: any) => i.transactionHash)).toEqual([poke.hash]);
    // The nulls are kept: the node answered (a revert is an answer), so it is not asked again.
    const [row] = await sqlRows<any>(stack, `SELECT name, metadata_read_at FROM tokens WHERE address = $1`, [
      token.toLowerCase(),
    ]);
    expect(row.name).toBeNull();
    expect(row.metadata_read_at).not.toBeNull();
    // The block of the malformed log is indexed with its log.
    const tx = await api.get(`/api/explorer/tx/${bad.hash}?network=testnet`);
    expect(tx.body.transaction.logs).toHaveLength(1);
    expect(tx.body.transaction.tokenTransfers).toEqual([]);
  }, 60_000);
});

describe('bad input', () => {
  it.each([
    ['/api/explorer/address/0x123/token-transfers', 'address'],
    [`/api/explorer/address/${A}/token-transfers?type=ERC-777`, 'type'],
    [`/api/explorer/address/${A}/token-transfers?direction=sideways`, null],
    [`/api/explorer/address/${A}/token-transfers?limit=101`, 'limit'],
    [`/api/explorer/address/${A}/token-transfers?cursor=nope`, 'cursor'],
    [`/api/explorer/address/${A}/token-transfers?token=0xzz`, 'token'],
    ['/api/explorer/token/0x12/holders', 'address'],
    [`/api/explorer/token/${A}/holders?cursor=eyJ2IjoxfQ`, 'cursor'],
    ['/api/explorer/tokens?type=erc-9', 'type'],
  ])('%s → 400', async (path, field) => {
    const res = await api.get(path);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    if (field) expect(res.body.error.details.field).toBe(field);
  });

  it('tokens: q is a name or symbol prefix, its wildcards taken literally', async () => {
    const named = await api.get('/api/explorer/tokens?network=testnet&q=TOKENS');
    expect(named.status).toBe(200);
    expect(named.body.items.map((t: any) => t.name).sort()).toEqual(['Tokens Seven', 'Tokens Twenty']);
    const bySymbol = await api.get('/api/explorer/tokens?network=testnet&q=tsn&type=erc721');
    expect(bySymbol.body.items.map((t: any) => t.symbol)).toEqual(['TSN']);
    for (const q of ['%25', '_', '%5C']) {
      const wild = await api.get(`/api/explorer/tokens?network=testnet&q=${q}`);
      expect(wild.body).toEqual({ items: [], nextCursor: null });
    }
    const page1 = await api.get('/api/explorer/tokens?network=testnet&limit=2');
    const page2 = await api.get(`/api/explorer/tokens?network=testnet&limit=2&cursor=${page1.body.nextCursor}`);
    const all = await api.get('/api/explorer/tokens?network=testnet');
    expect([...page1.body.items, ...page2.body.items]).toEqual(all.body.items);
    expect(all.body.items).toHaveLength(4);
  });

  it('GraphQL has the same fields, optional parts as null', async () => {
    const token = await t1155.getAddress();
    const res = await api.post('/graphql', {
      query: `query($a: String!, $t: String!) {
        addressTokenTransfers(address: $a, network: testnet, token: $t, direction: in, limit: 1) {
          items { batchIndex value tokenId token { type decimals } } nextCursor }
        token(address: $t, network: testnet) { found token { type holderCount } }
        tokenHolders(address: $t, network: testnet, limit: 1) { items { address value tokenId } }
      }`,
      variables: { a: B, t: token },
    });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.addressTokenTransfers).toEqual({
      items: [{ batchIndex: 1, value: '3', tokenId: '2', token: { type: 'ERC-1155', decimals: null } }],
      nextCursor: expect.any(String),
    });
    expect(res.body.data.token).toEqual({ found: true, token: { type: 'ERC-1155', holderCount: 3 } });
    expect(res.body.data.tokenHolders.items).toEqual([{ address: A, value: '10', tokenId: '9' }]);
    const erc20 = await api.post('/graphql', {
      query: `query($t: String!) { tokenTransfers(address: $t, network: testnet, limit: 1) { items { value tokenId batchIndex } } }`,
      variables: { t: await t20.getAddress() },
    });
    expect(erc20.body.data.tokenTransfers.items[0]).toEqual({
      value: expect.any(String),
      tokenId: null,
      batchIndex: null,
    });
  });

  it('an unknown token is {found: false}', async () => {
    const res = await api.get(`/api/explorer/token/${C}?network=testnet`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ found: false });
  });
});

describe('the tokenTransfers subscription', () => {
  const FIELDS = 'transactionHash blockNumber logIndex batchIndex from to value tokenId token { address type }';

  /** Collects what a subscription receives until `count` items or an error arrived. */
  function collect(variables: Record<string, unknown>, count: number) {
    const ws = createClient({
      url: stack.url.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      retryAttempts: 0,
    });
    const got: any[] = [];
    const done = new Promise<{ items: any[]; errors: any }>((resolve) => {
      ws.subscribe(
        {
          query: `subscription($n: Network, $a: String, $t: String, $f: Int) {
            tokenTransfers(network: $n, address: $a, token: $t, fromBlock: $f) { ${FIELDS} } }`,
          variables,
        },
        {
          next: (msg) => {
            if (msg.errors) return resolve({ items: got, errors: msg.errors });
            got.push((msg.data as any).tokenTransfers);
            if (got.length >= count) resolve({ items: got, errors: null });
          },
          error: (errors) => resolve({ items: got, errors }),
          complete: () => resolve({ items: got, errors: null }),
        },
      );
    });
    return { done, close: () => ws.dispose() };
  }

  it('replays from fromBlock, then follows new transfers in order, none missed', async () => {
    const me = await admin.getAddress();
    const token = await t20.getAddress();
    const history = await api.get(`/api/explorer/token/${token}/transfers?network=testnet&limit=100`);
    const past = [...history.body.items].reverse();
    const sub = collect({ n: 'testnet', t: token, f: 0 }, past.length + 3);
    await new Promise((r) => setTimeout(r, 500));
    const news = [];
    for (const to of [A, B, C]) news.push(await send(t20, 'transfer', to, 1n));
    const { items, errors } = await sub.done;
    await sub.close();
    expect(errors).toBeNull();
    expect(items.map((i) => i.transactionHash)).toEqual([
      ...past.map((p: any) => p.transactionHash),
      ...news.map((n) => n.hash),
    ]);
    expect(items[items.length - 1]).toEqual({
      transactionHash: news[2]!.hash,
      blockNumber: news[2]!.block,
      logIndex: expect.any(Number),
      batchIndex: null,
      from: me,
      to: C,
      value: '1',
      tokenId: null,
      token: { address: token, type: 'ERC-20' },
    });
  }, 60_000);

  it('follows an address across tokens, and refuses a subscription without address or token', async () => {
    const sub = collect({ n: 'testnet', a: C }, 1);
    await new Promise((r) => setTimeout(r, 500));
    const sent = await send(t721, 'mint', C, 42n);
    const { items } = await sub.done;
    await sub.close();
    expect(items[0]).toMatchObject({ transactionHash: sent.hash, tokenId: '42', to: C });
    const bad = collect({ n: 'testnet' }, 1);
    const { errors } = await bad.done;
    await bad.close();
    expect(errors[0].extensions.code).toBe('VALIDATION_FAILED');
  }, 60_000);
});
