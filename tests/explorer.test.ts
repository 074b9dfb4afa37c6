/* eslint-disable @typescript-eslint/no-explicit-any -- API responses are asserted field by field */
import {
  ContractFactory,
  getAddress,
  HDNodeWallet,
  Interface,
  JsonRpcProvider,
  NonceManager,
  parseEther,
  Wallet,
  type TransactionReceipt,
} from 'ethers';
import { createClient, type Client as WsClient } from 'graphql-ws';
import { Client as PgClient } from 'pg';
import WebSocket from 'ws';
import { BlockIndex } from '../src/modules/explorer';
import { providerOf } from './kit/chain';
import { client, type Client } from './kit/http';
import { compileCached } from './kit/solc-cache';
import { startStack, type Stack } from './kit/stack';
import { describeAnyFront, itAnyFront } from './jest-kit/fronts';

const MNEMONIC = 'test test test test test test test test test test test junk';
const devKey = (i: number) => HDNodeWallet.fromPhrase(MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`).privateKey;

const SOURCES = {
  'Pinger.sol': `// SPDX-License-Identifier: MIT
pragma solidity 0.8.20;
contract Pinger {
  event Ping(address indexed from, uint256 value);
  function ping(uint256 value) external { emit Ping(msg.sender, value); }
  function fail() external pure { revert("nope"); }
}`,
  'Token.sol': `// SPDX-License-Identifier: MIT
pragma solidity 0.8.20;
import "@openzeppelin/contracts/token/ERC20/ERC20.sol";
contract ExplorerToken is ERC20 {
  constructor() ERC20("Explorer Token", "EXT") { _mint(msg.sender, 1e24); }
}`,
};

interface Compiled {
  abi: any[];
  bytecode: string;
  deployedBytecode: string;
  immutableReferences: Record<string, unknown>;
}

/** solc 0.8.20, paris, optimizer 200: what the portal compiles with. */
function compile(): Record<'Pinger' | 'ExplorerToken', Compiled> {
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(Object.entries(SOURCES).map(([k, content]) => [k, { content }])),
    settings: {
      evmVersion: 'paris',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode'] } },
    },
  };
  const out = JSON.parse(compileCached(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e: any) => e.severity === 'error');
  if (errors.length > 0) throw new Error(JSON.stringify(errors));
  const pick = (file: string, name: string): Compiled => {
    const c = out.contracts[file][name];
    return {
      abi: c.abi,
      bytecode: `0x${c.evm.bytecode.object}`,
      deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
      immutableReferences: c.evm.deployedBytecode.immutableReferences ?? {},
    };
  };
  return { Pinger: pick('Pinger.sol', 'Pinger'), ExplorerToken: pick('Token.sol', 'ExplorerToken') };
}

let stack: Stack;
let api: Client;
let main: JsonRpcProvider;
let test: JsonRpcProvider;
let pg: PgClient;
const A = new Wallet(devKey(1));
const B = new Wallet(devKey(2));
const STRANGER = getAddress(`0x${'5a'.repeat(20)}`);

const r: Record<string, TransactionReceipt> = {};
let pinger: string;
let token: string;
let contractIds: { pinger: string; token: string; forged: string; unapproved: string };
let compiled: ReturnType<typeof compile>;

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((res) => setTimeout(res, 200));
  }
}

/** Waits until the index of `network` has reached `block`. */
const indexed = (network: string, block: number) =>
  waitFor(`${network} indexed to ${block}`, async () => {
    const s = await api.get(`/api/explorer/network-status?network=${network}`);
    return s.body.indexer.lastIndexedBlock >= block ? s.body : undefined;
  });

async function insertContract(row: {
  name: string;
  network: string;
  address: string;
  c: Compiled;
  approved: boolean;
  ownerId: string;
  deployedBytecode?: string;
}): Promise<string> {
  const res = await pg.query(
    `INSERT INTO contracts (name, network, chain_id, status, address, owner_id, contract_name, source_file, abi,
       bytecode, deployed_bytecode, immutable_references, bytecode_hash, source_hash, sources, compiler,
       deployed_at, approved_at)
     VALUES ($1, $2, $3, 'deployed', $4, $5, $1, 'X.sol', $6, $7, $8, $9, 'h', 'h', '{}', '{}', now(), $10)
     RETURNING id`,
    [
      row.name,
      row.network,
      row.network === 'mainnet' ? 1991 : 17991,
      row.address,
      row.ownerId,
      JSON.stringify(row.c.abi),
      row.c.bytecode,
      row.deployedBytecode ?? row.c.deployedBytecode,
      JSON.stringify(row.c.immutableReferences),
      row.approved ? new Date() : null,
    ],
  );
  return res.rows[0].id;
}

beforeAll(async () => {
  compiled = compile();
  stack = await startStack();
  api = client(stack.url);
  main = providerOf(stack, 'mainnet');
  test = providerOf(stack, 'testnet');
  pg = new PgClient({ connectionString: stack.databaseUrl });
  await pg.connect();

  // Mainnet: deployments, a call with a log, a revert, value transfers both ways and to self, a token transfer.
  const a = new NonceManager(A.connect(main));
  const b = B.connect(main);
  const pingerDeploy = await new ContractFactory(compiled.Pinger.abi, compiled.Pinger.bytecode, a).deploy();
  const tokenDeploy = await new ContractFactory(
    compiled.ExplorerToken.abi,
    compiled.ExplorerToken.bytecode,
    a,
  ).deploy();
  const forgedDeploy = await new ContractFactory(
    compiled.ExplorerToken.abi,
    compiled.ExplorerToken.bytecode,
    a,
  ).deploy();
  const unapprovedDeploy = await new ContractFactory(
    compiled.ExplorerToken.abi,
    compiled.ExplorerToken.bytecode,
    a,
  ).deploy();
  pinger = await pingerDeploy.getAddress();
  token = await tokenDeploy.getAddress();
  const pingerIface = new Interface(compiled.Pinger.abi);
  const tokenIface = new Interface(compiled.ExplorerToken.abi);
  const sent = {
    pingerDeploy: pingerDeploy.deploymentTransaction()!,
    tokenDeploy: tokenDeploy.deploymentTransaction()!,
    forgedDeploy: forgedDeploy.deploymentTransaction()!,
    unapprovedDeploy: unapprovedDeploy.deploymentTransaction()!,
    ping: await a.sendTransaction({ to: pinger, data: pingerIface.encodeFunctionData('ping', [42]) }),
    fail: await a.sendTransaction({ to: pinger, data: pingerIface.encodeFunctionData('fail'), gasLimit: 100_000 }),
    toB: await a.sendTransaction({ to: B.address, value: parseEther('1.5') }),
    toSelf: await a.sendTransaction({ to: A.address, value: 1n }),
    tokenTransfer: await a.sendTransaction({
      to: token,
      data: tokenIface.encodeFunctionData('transfer', [B.address, 1000n]),
    }),
    fromB: await b.sendTransaction({ to: A.address, value: parseEther('0.25') }),
  };
  // waitForTransaction, not tx.wait(): the latter throws on the reverted one.
  for (const [k, tx] of Object.entries(sent)) r[k] = (await main.waitForTransaction(tx.hash))!;
  // Testnet: one transfer, to see the networks kept apart.
  const onTestnet = await A.connect(test).sendTransaction({ to: B.address, value: 7n });
  r.testnetTransfer = (await test.waitForTransaction(onTestnet.hash))!;

  // The portal's records of these contracts (normally made by the contracts domain).
  const dev = await pg.query(
    `INSERT INTO developers (identity_key, display_name, subject) VALUES ('explorer-test', 'E', 'CN=E') RETURNING id`,
  );
  const ownerId = dev.rows[0].id;
  const forgedCode = compiled.ExplorerToken.deployedBytecode.replace(/..$/, '00');
  contractIds = {
    pinger: await insertContract({
      name: 'Pinger',
      network: 'mainnet',
      address: pinger,
      c: compiled.Pinger,
      approved: false,
      ownerId,
    }),
    token: await insertContract({
      name: 'ExplorerToken',
      network: 'mainnet',
      address: token,
      c: compiled.ExplorerToken,
      approved: true,
      ownerId,
    }),
    forged: await insertContract({
      name: 'ForgedToken',
      network: 'mainnet',
      address: await forgedDeploy.getAddress(),
      c: compiled.ExplorerToken,
      approved: true,
      ownerId,
      deployedBytecode: forgedCode,
    }),
    unapproved: await insertContract({
      name: 'UnapprovedToken',
      network: 'mainnet',
      address: await unapprovedDeploy.getAddress(),
      c: compiled.ExplorerToken,
      approved: false,
      ownerId,
    }),
  };
  const last = Math.max(
    ...Object.values(r)
      .filter((x) => x !== r.testnetTransfer)
      .map((x) => x.blockNumber),
  );
  await indexed('mainnet', last);
  await indexed('testnet', r.testnetTransfer!.blockNumber);
}, 60_000);

afterAll(async () => {
  await pg?.end();
  main?.destroy();
  test?.destroy();
  await stack?.stop();
});

describe('block index', () => {
  it('stores every block with a parent link to the previous one, from genesis', async () => {
    const head = r.fromB!.blockNumber;
    const rows = await pg.query(
      `SELECT number, hash, parent_hash, transaction_count FROM explorer_blocks
       WHERE network = 'mainnet' AND number <= $1 ORDER BY number`,
      [head],
    );
    expect(rows.rows.map((x) => Number(x.number))).toEqual(Array.from({ length: head + 1 }, (_, i) => i));
    for (let i = 1; i < rows.rows.length; i++) expect(rows.rows[i].parent_hash).toBe(rows.rows[i - 1].hash);
    const node = await main.getBlock(head);
    expect(rows.rows[head].hash).toBe(node!.hash);
    expect(Number(rows.rows[head].transaction_count)).toBe(node!.transactions.length);
  });

  it('answers transactions from the index exactly as the node has them', async () => {
    for (const key of ['pingerDeploy', 'ping', 'fail', 'toB', 'toSelf', 'tokenTransfer', 'fromB']) {
      const receipt = r[key]!;
      const tx = (await main.getTransaction(receipt.hash))!;
      const stored = await pg.query(`SELECT 1 FROM explorer_transactions WHERE network = 'mainnet' AND hash = $1`, [
        receipt.hash,
      ]);
      expect(stored.rowCount).toBe(1);
      const res = await api.get(`/api/explorer/tx/${receipt.hash}`);
      expect(res.status).toBe(200);
      expect(res.body.found).toBe(true);
      expect(res.body.transaction).toMatchObject({
        hash: receipt.hash,
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
        transactionIndex: receipt.index,
        from: tx.from,
        to: tx.to,
        contractAddress: receipt.contractAddress,
        value: tx.value.toString(),
        nonce: tx.nonce,
        gasLimit: tx.gasLimit.toString(),
        gasPrice: receipt.gasPrice.toString(),
        gasUsed: receipt.gasUsed.toString(),
        status: receipt.status === 1 ? 'success' : 'reverted',
        input: tx.data,
        logs: receipt.logs.map((l) => ({ address: l.address, topics: l.topics, data: l.data, logIndex: l.index })),
      });
      expect(res.body.transaction.timestamp).toBe((await main.getBlock(receipt.blockNumber))!.timestamp);
    }
    expect(r.fail!.status).toBe(0);
    expect(r.ping!.logs).toHaveLength(1);
  });

  itAnyFront('decodes calls to portal contracts, and only those', async () => {
    const ping = await api.get(`/api/explorer/tx/${r.ping!.hash}`);
    expect(ping.body.transaction.method).toEqual({
      name: 'ping',
      signature: 'ping(uint256)',
      args: [{ name: 'value', type: 'uint256', value: '42' }],
    });
    const transfer = await api.get(`/api/explorer/tx/${r.tokenTransfer!.hash}`);
    expect(transfer.body.transaction.method).toEqual({
      name: 'transfer',
      signature: 'transfer(address,uint256)',
      args: [
        { name: 'to', type: 'address', value: B.address },
        { name: 'value', type: 'uint256', value: '1000' },
      ],
    });
    const plain = await api.get(`/api/explorer/tx/${r.toB!.hash}`);
    // REST leaves optional parts out when absent (docs/api.md, "Explorer" `method?`); GraphQL has them null.
    expect(plain.body.transaction).not.toHaveProperty('method');
  });

  itAnyFront('says found: false for unknown hashes, keeps networks apart, and refuses malformed hashes', async () => {
    const unknown = await api.get(`/api/explorer/tx/0x${'ab'.repeat(32)}`);
    expect(unknown.status).toBe(200);
    expect(unknown.body).toStrictEqual({ found: false });
    const wrongNetwork = await api.get(`/api/explorer/tx/${r.testnetTransfer!.hash}?network=mainnet`);
    expect(wrongNetwork.body.found).toBe(false);
    const right = await api.get(
      `/api/explorer/tx/${r.testnetTransfer!.hash.toUpperCase().replace('0X', '0x')}?network=testnet`,
    );
    expect(right.body.transaction).toMatchObject({ hash: r.testnetTransfer!.hash, value: '7' });
    for (const bad of ['0x1234', 'xyz', `0x${'g'.repeat(64)}`]) {
      const res = await api.get(`/api/explorer/tx/${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });
});

describeAnyFront('blocks', () => {
  it('serves a block by number, hash and latest, as the node has it', async () => {
    const n = r.ping!.blockNumber;
    const node = (await main.getBlock(n))!;
    const expected = {
      number: n,
      hash: node.hash,
      parentHash: node.parentHash,
      timestamp: node.timestamp,
      proposer: node.miner,
      transactionCount: node.transactions.length,
      gasUsed: node.gasUsed.toString(),
      gasLimit: node.gasLimit.toString(),
      transactions: [...node.transactions],
      extraData: node.extraData,
    };
    expect((await api.get(`/api/explorer/block/${n}`)).body).toEqual({ found: true, block: expected });
    expect((await api.get(`/api/explorer/block/${node.hash}`)).body).toEqual({ found: true, block: expected });
    const latest = await api.get('/api/explorer/block/latest');
    expect(latest.body.block.number).toBeGreaterThanOrEqual(r.fromB!.blockNumber);
  });

  it('says found: false for blocks that do not exist and refuses malformed ids', async () => {
    expect((await api.get('/api/explorer/block/99999999')).body).toStrictEqual({ found: false });
    expect((await api.get(`/api/explorer/block/0x${'cd'.repeat(32)}`)).body).toStrictEqual({ found: false });
    for (const bad of ['-1', 'abc', '0x12', '1.5']) {
      const res = await api.get(`/api/explorer/block/${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('lists live blocks newest first, consecutive, equal to the node, with limits', async () => {
    // The default page is 10 blocks: let the 1-second chain make that many, and the service see them.
    const res = await waitFor('ten mainnet blocks in the live feed', async () => {
      const r = await api.get('/api/explorer/live-blocks');
      return r.status === 200 && r.body.blocks.length >= 10 ? r : undefined;
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ network: 'mainnet', chainId: 1991 });
    const blocks = res.body.blocks;
    expect(blocks).toHaveLength(10);
    for (let i = 1; i < blocks.length; i++) {
      expect(blocks[i].number).toBe(blocks[i - 1].number - 1);
      expect(blocks[i - 1].parentHash).toBe(blocks[i].hash);
    }
    const node = (await main.getBlock(blocks[3].number))!;
    expect(blocks[3]).toEqual({
      number: node.number,
      hash: node.hash,
      parentHash: node.parentHash,
      timestamp: node.timestamp,
      proposer: node.miner,
      transactionCount: node.transactions.length,
      gasUsed: node.gasUsed.toString(),
      gasLimit: node.gasLimit.toString(),
    });
    const three = await api.get('/api/explorer/live-blocks?limit=3&network=testnet');
    expect(three.body).toMatchObject({ network: 'testnet', chainId: 17991 });
    expect(three.body.blocks).toHaveLength(3);
    for (const bad of ['0', '101', 'abc', '-5']) {
      const bodyOf = await api.get(`/api/explorer/live-blocks?limit=${bad}`);
      expect(bodyOf.status).toBe(400);
      expect(bodyOf.body.error.code).toBe('VALIDATION_FAILED');
    }
    const badNetwork = await api.get('/api/explorer/live-blocks?network=devnet');
    expect(badNetwork.status).toBe(400);
    expect(badNetwork.body.error.code).toBe('INVALID_NETWORK');
  });
});

describe('network status', () => {
  it('reports the last block, the proposer as validator on a dev chain, block time, RPC health and index lag', async () => {
    const res = await api.get('/api/explorer/network-status');
    expect(res.status).toBe(200);
    const head = (await main.getBlock('latest'))!;
    expect(res.body).toMatchObject({
      network: 'mainnet',
      chainId: 1991,
      consensus: 'qbft',
      validators: [head.miner],
      validatorCount: 1,
      rpc: { healthy: true },
    });
    expect(res.body.rpc).not.toHaveProperty('error');
    expect(res.body.lastBlock.number).toBeGreaterThanOrEqual(head.number - 1);
    expect(res.body.lastBlock.hash).toBe((await main.getBlock(res.body.lastBlock.number))!.hash);
    expect(res.body.rpc.latencyMs).toEqual(expect.any(Number));
    expect(res.body.averageBlockTimeSeconds).toBeGreaterThan(0.5);
    expect(res.body.averageBlockTimeSeconds).toBeLessThan(1.6);
    expect(res.body.indexer.lastIndexedBlock).toBeGreaterThanOrEqual(r.fromB!.blockNumber);
    expect(res.body.indexer.lagBlocks).toBeLessThanOrEqual(3);
  });
});

describeAnyFront('addresses', () => {
  it('lists activity from the index with directions, statuses and method names, newest first', async () => {
    const res = await api.get(`/api/explorer/address/${A.address.toLowerCase()}`);
    expect(res.status).toBe(200);
    expect(res.body.found).toBe(true);
    expect(res.body.activityKind).toBe('indexed');
    expect(res.body.info).toEqual({
      address: A.address,
      balanceWei: (await main.getBalance(A.address)).toString(),
      nonce: await main.getTransactionCount(A.address),
      isContract: false,
      codeSize: 0,
    });
    expect(res.body.info).not.toHaveProperty('contract');
    const byHash = new Map<string, any>(res.body.activity.map((x: any) => [x.txHash, x]));
    expect(byHash.get(r.toB!.hash)).toMatchObject({
      direction: 'out',
      from: A.address,
      to: B.address,
      value: parseEther('1.5').toString(),
      status: 'success',
    });
    expect(byHash.get(r.toSelf!.hash)).toMatchObject({ direction: 'self' });
    expect(byHash.get(r.fromB!.hash)).toMatchObject({ direction: 'in', from: B.address });
    expect(byHash.get(r.pingerDeploy!.hash)).toMatchObject({ direction: 'create', to: null });
    expect(byHash.get(r.fail!.hash)).toMatchObject({ direction: 'out', status: 'reverted', method: 'fail' });
    expect(byHash.get(r.ping!.hash)).toMatchObject({ method: 'ping', blockNumber: r.ping!.blockNumber });
    expect(byHash.get(r.ping!.hash).timestamp).toBe((await main.getBlock(r.ping!.blockNumber))!.timestamp);
    expect(res.body.activity).toHaveLength(10);
    const order = res.body.activity.map((x: any) => x.blockNumber);
    expect([...order].sort((x, y) => y - x)).toEqual(order);

    const two = await api.get(`/api/explorer/address/${A.address}?limit=2`);
    expect(two.body.activity).toEqual(res.body.activity.slice(0, 2));
  });

  it('scans the latest blocks over RPC when asked, with the same items', async () => {
    const indexed = await api.get(`/api/explorer/address/${A.address}`);
    const scanned = await api.get(`/api/explorer/address/${A.address}?scan=5000`);
    expect(scanned.body.activityKind).toBe('scan');
    expect(scanned.body.activity).toEqual(indexed.body.activity);
    const narrow = await api.get(`/api/explorer/address/${A.address}?scan=1`);
    expect(['scan', 'none']).toContain(narrow.body.activityKind);
  });

  it('describes a portal contract: code size, verification, its creation and calls', async () => {
    const res = await api.get(`/api/explorer/address/${pinger}`);
    expect(res.body.info).toMatchObject({
      address: pinger,
      isContract: true,
      codeSize: ((await main.getCode(pinger)).length - 2) / 2,
      contract: { id: contractIds.pinger, name: 'Pinger', verified: true },
    });
    const kinds = res.body.activity.map((x: any) => [x.txHash, x.direction]);
    expect(kinds).toEqual(
      expect.arrayContaining([
        [r.pingerDeploy!.hash, 'create'],
        [r.ping!.hash, 'in'],
        [r.fail!.hash, 'in'],
      ]),
    );
    const forged = await api.get(`/api/explorer/address/${r.forgedDeploy!.contractAddress}`);
    expect(forged.body.info.contract.verified).toBe(false);
  });

  it('says found: false for an unused address and refuses bad input', async () => {
    const res = await api.get(`/api/explorer/address/${STRANGER}`);
    expect(res.body).toStrictEqual({ found: false, activity: [], activityKind: 'none' });
    for (const bad of ['0x12', `${A.address}00`, 'hello']) {
      const x = await api.get(`/api/explorer/address/${bad}`);
      expect(x.status).toBe(400);
      expect(x.body.error.code).toBe('VALIDATION_FAILED');
    }
    for (const q of ['limit=0', 'limit=101', 'scan=0', 'scan=5001', 'scan=lots', 'limit=x']) {
      const x = await api.get(`/api/explorer/address/${A.address}?${q}`);
      expect(x.status).toBe(400);
      expect(x.body.error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('uses the activity indexes (EXPLAIN)', async () => {
    await pg.query('ANALYZE explorer_transactions');
    // On a table this small the planner may rightly prefer a sequential scan; forbid it to see the index plan.
    await pg.query('SET enable_seqscan = off');
    const plan = await pg.query(`EXPLAIN ${BlockIndex.ACTIVITY_SQL}`, ['mainnet', A.address.toLowerCase(), 25]);
    await pg.query('SET enable_seqscan = on');
    const text = plan.rows.map((x) => x['QUERY PLAN']).join('\n');
    expect(text).toMatch(/explorer_transactions_from_idx/);
    expect(text).toMatch(/explorer_transactions_to_idx/);
    expect(text).toMatch(/explorer_transactions_created_idx/);
    expect(text).not.toMatch(/Seq Scan/);
  });
});

describeAnyFront('search', () => {
  const search = (q: string, network = 'mainnet') =>
    api.get(`/api/explorer/search?q=${encodeURIComponent(q)}&network=${network}`);

  it('finds blocks by number and hash, transactions by hash, addresses and contracts', async () => {
    const n = r.ping!.blockNumber;
    expect((await search(String(n))).body).toEqual({
      query: String(n),
      network: 'mainnet',
      results: [{ type: 'block', number: n, hash: r.ping!.blockHash }],
    });
    expect((await search(r.ping!.hash)).body.results).toEqual([
      { type: 'transaction', hash: r.ping!.hash, blockNumber: n },
    ]);
    expect((await search(r.ping!.blockHash)).body.results).toEqual([
      { type: 'block', number: n, hash: r.ping!.blockHash },
    ]);
    expect((await search(A.address.toLowerCase())).body.results).toEqual([
      { type: 'address', address: A.address, isContract: false },
    ]);
    expect((await search(pinger)).body.results).toEqual([
      { type: 'address', address: pinger, isContract: true },
      { type: 'contract', address: pinger, contractId: contractIds.pinger, name: 'Pinger', network: 'mainnet' },
    ]);
  });

  it('finds portal contracts by name prefix and verified assets by symbol, per network', async () => {
    expect((await search('ping')).body.results).toEqual([
      { type: 'contract', address: pinger, contractId: contractIds.pinger, name: 'Pinger', network: 'mainnet' },
    ]);
    await api.get('/api/explorer/verified-assets/recent'); // verifies the tokens
    const bySymbol = (await search('ext')).body.results.map((x: any) => x.contractId);
    expect(bySymbol).toContain(contractIds.token);
    expect(bySymbol).toEqual([contractIds.token]);
    expect((await search('ping', 'testnet')).body.results).toEqual([]);
    expect((await search('100%_')).body.results).toEqual([]);
    expect((await search('99999999')).body.results).toEqual([]);
  });

  it('refuses an empty query', async () => {
    for (const q of ['', '   ']) {
      const res = await search(q);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });
});

describeAnyFront('verified assets', () => {
  it('lists approved mainnet tokens whose code matches, with name, symbol and decimals', async () => {
    const res = await api.get('/api/explorer/verified-assets/recent');
    expect(res.status).toBe(200);
    expect(res.body.network).toBe('mainnet');
    expect(res.body.assets).toEqual([
      {
        contractId: contractIds.token,
        address: token,
        name: 'Explorer Token',
        symbol: 'EXT',
        decimals: 18,
        standard: 'ERC-20',
        verifiedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      },
    ]);
    expect((await api.get('/api/explorer/verified-assets/recent?limit=1')).body.assets).toHaveLength(1);
  });

  it('is mainnet only, and checks its limit', async () => {
    const testnet = await api.get('/api/explorer/verified-assets/recent?network=testnet');
    expect(testnet.status).toBe(400);
    expect(testnet.body.error.code).toBe('MAINNET_ONLY');
    expect((await api.get('/api/explorer/verified-assets/recent?network=mainnet')).status).toBe(200);
    expect((await api.get('/api/explorer/verified-assets/recent?network=moon')).body.error.code).toBe(
      'INVALID_NETWORK',
    );
    for (const bad of ['0', '101', 'ten']) {
      expect((await api.get(`/api/explorer/verified-assets/recent?limit=${bad}`)).status).toBe(400);
    }
  });

  it('gets to a new token even behind many newer approved contracts that are not tokens', async () => {
    const ownerId = (await pg.query(`SELECT owner_id FROM contracts WHERE id = $1`, [contractIds.token])).rows[0]
      .owner_id;
    const lateToken = await insertContract({
      name: 'LateToken',
      network: 'mainnet',
      address: token,
      c: compiled.ExplorerToken,
      approved: true,
      ownerId,
    });
    await pg.query(`UPDATE contracts SET deployed_at = now() - interval '1 hour' WHERE id = $1`, [lateToken]);
    for (let i = 0; i < 25; i++) {
      await insertContract({
        name: `Filler${i}`,
        network: 'mainnet',
        address: pinger,
        c: compiled.Pinger,
        approved: true,
        ownerId,
      });
    }
    const ids: string[] = [];
    for (let call = 0; call < 3 && !ids.includes(lateToken); call++) {
      const res = await api.get('/api/explorer/verified-assets/recent?limit=100');
      ids.splice(0, ids.length, ...res.body.assets.map((a: any) => a.contractId));
    }
    expect(ids).toContain(lateToken);
    expect(ids).toContain(contractIds.token);
  });
});

describeAnyFront('GraphQL', () => {
  it('serves the same objects as REST, and error codes in extensions', async () => {
    const rest = await api.get(`/api/explorer/block/${r.ping!.blockNumber}`);
    const gql = await api.graphql(
      `query($id: String!) { block(id: $id) { found block { number hash parentHash timestamp proposer transactionCount
         gasUsed gasLimit transactions extraData } } }`,
      { id: String(r.ping!.blockNumber) },
    );
    expect(gql.body.data.block).toEqual(rest.body);
    const status = await api.graphql('{ networkStatus(network: testnet) { network chainId rpc { healthy } } }');
    expect(status.body.data.networkStatus).toEqual({ network: 'testnet', chainId: 17991, rpc: { healthy: true } });
    const bad = await api.graphql('{ liveBlocks(limit: 500) { blocks { number } } }');
    expect(bad.status).toBe(200);
    expect(bad.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    const testnetAssets = await api.graphql('{ recentVerifiedAssets(network: testnet) { network } }');
    expect(testnetAssets.body.errors[0].extensions.code).toBe('MAINNET_ONLY');
  });
});

describe('live blocks over graphql-ws', () => {
  const wsClient = (): WsClient =>
    createClient({ url: stack.url.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, retryAttempts: 0 });

  /**
   * Subscribes and resolves with the first `count` blocks (with their arrival times), or, when
   * `count` is a function, with the blocks up to the first numbered at least what it returns (its
   * answer may change: `recheck` applies it again).
   */
  function collect(ws: WsClient, network: string, count: number | (() => number)) {
    const blocks: Array<{ block: any; at: number }> = [];
    let unsubscribe = () => undefined as void;
    let settle = (): void => undefined;
    let onFirst = (): void => undefined;
    let failFirst = (_e: unknown): void => undefined;
    const first = new Promise<void>((resolve, reject) => {
      onFirst = resolve;
      failFirst = reject;
    });
    first.catch(() => undefined); // awaited only by the tests that wait for it
    const done = new Promise<Array<{ block: any; at: number }>>((resolve, reject) => {
      const enough = () =>
        typeof count === 'number'
          ? blocks.length >= count
          : blocks.length > 0 && blocks[blocks.length - 1]!.block.number >= count();
      settle = () => {
        if (enough()) resolve(blocks);
      };
      unsubscribe = ws.subscribe(
        {
          query: `subscription { liveBlocks(network: ${network}) { number hash parentHash timestamp proposer transactionCount gasUsed gasLimit } }`,
        },
        {
          next: (msg) => {
            blocks.push({ block: (msg.data as any).liveBlocks, at: Date.now() });
            if (blocks.length === 1) onFirst();
            settle();
          },
          error: (e) => {
            failFirst(e);
            reject(e);
          },
          complete: () => {
            failFirst(new Error('the subscription completed before its first block'));
            resolve(blocks);
          },
        },
      );
    });
    return { done, first, blocks, recheck: () => settle(), stop: () => unsubscribe() };
  }

  it('pushes consecutive blocks in order, as the REST block summary, within a second', async () => {
    const ws = wsClient();
    try {
      const { done, stop } = collect(ws, 'testnet', 3);
      const got = await done;
      stop();
      for (let i = 1; i < got.length; i++) {
        expect(got[i]!.block.number).toBe(got[i - 1]!.block.number + 1);
        expect(got[i]!.block.parentHash).toBe(got[i - 1]!.block.hash);
      }
      const rest = await api.get(`/api/explorer/live-blocks?network=testnet&limit=100`);
      const same = rest.body.blocks.find((b: any) => b.number === got[1]!.block.number);
      expect(got[1]!.block).toEqual(same);
      // Block timestamps have whole seconds: arrival within 1 s of the block's second ends within 2 s of its start.
      for (const { block, at } of got) expect(at - block.timestamp * 1000).toBeLessThan(2_000);
    } finally {
      await ws.dispose();
    }
  });

  itAnyFront(
    'feeds 200 concurrent subscribers the same blocks, without gaps',
    async () => {
      const clients = Array.from({ length: 200 }, () => wsClient());
      try {
        // Each collects until 2 blocks after the last subscriber's first: all 200 then saw at least 3
        // blocks together, however long opening them took on a busy machine.
        let until = Number.POSITIVE_INFINITY;
        const subs = clients.map((ws) => collect(ws, 'mainnet', () => until));
        await Promise.all(subs.map((s) => s.first));
        const lastFirst = Math.max(...subs.map((s) => s.blocks[0]!.block.number));
        until = lastFirst + 2;
        subs.forEach((s) => s.recheck());
        const results = await Promise.all(subs.map((s) => s.done));
        subs.forEach((s) => s.stop());
        // Subscriptions start at slightly different moments: each sees 3 consecutive blocks, and a block
        // seen by several subscribers is the same object for all.
        const byNumber = new Map<number, string>();
        for (const res of results) {
          const numbers = res.map((x) => x.block.number);
          for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBe(numbers[i - 1]! + 1);
          for (const { block } of res) {
            const json = JSON.stringify(block);
            expect(byNumber.get(block.number) ?? json).toBe(json);
            byNumber.set(block.number, json);
          }
        }
        // All 200 were live together: each saw the same blocks lastFirst .. lastFirst + 2, gap-free.
        for (const res of results) {
          const numbers = res.map((x) => x.block.number);
          for (let n = lastFirst; n <= lastFirst + 2; n++) expect(numbers).toContain(n);
        }
      } finally {
        await Promise.all(clients.map((ws) => ws.dispose()));
      }
    },
    30_000,
  );

  itAnyFront('replays a burst of blocks in order, and drops only a subscriber that does not read', async () => {
    const explorer = stack.app.services.explorer;
    const slow = explorer.blocks.subscribeLiveBlocks(null)[Symbol.asyncIterator]();
    const fast = explorer.blocks.subscribeLiveBlocks(null)[Symbol.asyncIterator]();
    const before = await main.getBlockNumber();
    await main.send('anvil_mine', ['0x12c', '0x1']); // 300 blocks at once
    const seen: number[] = [];
    while (seen.length < 300) {
      const next = await fast.next();
      if (!next.done && next.value.number > before) seen.push(next.value.number);
    }
    expect(seen).toEqual(Array.from({ length: 300 }, (_, i) => before + 1 + i));
    await expect(
      (async () => {
        for (;;) await slow.next();
      })(),
    ).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    await fast.return!();
  });
});
