/* eslint-disable @typescript-eslint/no-explicit-any -- JSON-RPC answers are asserted field by field */
import { Contract, ContractFactory, NonceManager, Wallet } from 'ethers';
import { ANVIL_KEYS, providerOf } from './kit/chain';
import { client, type Client } from './kit/http';
import { login } from './kit/login';
import { newKey } from './kit/flows';
import { startStack, type Stack } from './kit/stack';

// Alchemy's token methods on the JSON-RPC door (docs/api.md, "JSON-RPC door"), asked by
// alchemy-sdk itself pointed at the door, and checked against the chain (balanceOf) and the index.

const TOKEN = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
import "@openzeppelin/contracts/token/ERC20/ERC20.sol";
contract Coin is ERC20 {
    constructor() ERC20("Alchemy Coin", "ALC") {}
    function mint(address to, uint256 amount) external { _mint(to, amount); }
}`;

let stack: Stack;
let api: Client;
let key: string;
let coin: Contract;
let admin: NonceManager;
const holder = Wallet.createRandom().address;
const other = Wallet.createRandom().address;
// alchemy-sdk is an ES module for the type checker; the tests load its CommonJS build.
let alchemy: any;

async function indexed(block: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const status = await api.get('/api/explorer/network-status?network=testnet');
    if ((status.body.indexer?.lastIndexedBlock ?? -1) >= block) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`block ${block} was not indexed`);
}

async function send(method: string, ...args: unknown[]): Promise<number> {
  const receipt = await (await (coin as any)[method](...args)).wait();
  await indexed(receipt.blockNumber);
  return receipt.blockNumber as number;
}

beforeAll(async () => {
  stack = await startStack();
  api = client(stack.url);
  const dev = await login(api, stack.ca);
  key = (await newKey(api, dev, { name: 'alchemy', scopes: ['read'] })).apiKey;
  admin = new NonceManager(new Wallet(ANVIL_KEYS[1]!, providerOf(stack, 'testnet')));
  // The developers' lane: its 20 s limit, however busy the machine.
  const compiled = await api.post('/api/devportal/contracts/compile', { source: TOKEN }, { token: dev.token });
  if (compiled.status !== 201) throw new Error(`compile: ${compiled.status} ${JSON.stringify(compiled.body)}`);
  const c = compiled.body.contracts.find((x: any) => x.name === 'Coin');
  coin = (await (await new ContractFactory(c.abi, c.bytecode, admin).deploy()).waitForDeployment()) as Contract;
  await send('mint', holder, 5n * 10n ** 18n);
  await send('mint', other, 7n);
  const { Alchemy } = await import('alchemy-sdk');
  alchemy = new Alchemy({ url: `${stack.url}/rpc/testnet/${key}`, maxRetries: 0 });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('alchemy-sdk against the door', () => {
  it('getTokenBalances: the ERC-20 balances the chain holds', async () => {
    const address = await coin.getAddress();
    const res = await alchemy.core.getTokenBalances(holder);
    expect(res.address).toBe(holder.toLowerCase());
    expect(res.tokenBalances).toEqual([
      { contractAddress: address.toLowerCase(), tokenBalance: expect.stringMatching(/^0x[0-9a-f]{64}$/), error: null },
    ]);
    expect(BigInt(res.tokenBalances[0].tokenBalance)).toBe(await (coin as any).balanceOf(holder));
    const asked = await alchemy.core.getTokenBalances(holder, [address, Wallet.createRandom().address]);
    expect(asked.tokenBalances.map((b: any) => BigInt(b.tokenBalance))).toEqual([5n * 10n ** 18n, 0n]);
  });

  it('getAssetTransfers: the index’s ERC-20 transfers in Alchemy’s shape, paged and filtered', async () => {
    const address = (await coin.getAddress()).toLowerCase();
    const all = await alchemy.core.getAssetTransfers({
      fromBlock: '0x0',
      category: ['erc20'],
      contractAddresses: [address],
      withMetadata: true,
    });
    expect(all.transfers).toHaveLength(2);
    expect(all.transfers[0]).toMatchObject({
      from: '0x0000000000000000000000000000000000000000',
      to: holder.toLowerCase(),
      value: 5,
      asset: 'ALC',
      category: 'erc20',
      erc721TokenId: null,
      erc1155Metadata: null,
      rawContract: { address, decimal: '0x12', value: `0x${(5n * 10n ** 18n).toString(16).padStart(64, '0')}` },
    });
    expect(all.transfers[0].blockNum).toMatch(/^0x[0-9a-f]+$/);
    expect(all.transfers[0].metadata.blockTimestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
    const toOther = await alchemy.core.getAssetTransfers({ category: ['erc20'], toAddress: other, order: 'desc' });
    expect(toOther.transfers.map((t: any) => t.to)).toEqual([other.toLowerCase()]);
    const first = await alchemy.core.getAssetTransfers({
      category: ['erc20'],
      contractAddresses: [address],
      maxCount: 1,
    });
    expect(first.transfers).toHaveLength(1);
    expect(first.pageKey).toEqual(expect.any(String));
    const next = await alchemy.core.getAssetTransfers({
      category: ['erc20'],
      contractAddresses: [address],
      maxCount: 1,
      pageKey: first.pageKey,
    });
    expect(next.transfers[0].to).toBe(other.toLowerCase());
    expect(next.pageKey).toBeUndefined();
  });

  it('refuses what the index cannot answer with -32602 naming it', async () => {
    const res = await fetch(`${stack.url}/rpc/testnet/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'alchemy_getAssetTransfers',
        params: [{ category: ['external'] }],
      }),
    });
    const body = (await res.json()) as any;
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toContain('external');
  });
});

describe('Etherscan token actions (docs/api.md, "Tokens")', () => {
  const etherscan = async (query: string) => {
    const res = await fetch(`${stack.url}/api/explorer/etherscan/testnet/api?${query}`);
    expect(res.status).toBe(200);
    return (await res.json()) as any;
  };

  it('tokentx lists an address’s ERC-20 transfers with Etherscan’s fields; tokennfttx finds none', async () => {
    const address = (await coin.getAddress()).toLowerCase();
    const res = await etherscan(`module=account&action=tokentx&address=${holder}&sort=asc`);
    expect(res).toMatchObject({ status: '1', message: 'OK' });
    expect(res.result).toHaveLength(1);
    expect(Object.keys(res.result[0]).sort()).toEqual(
      [
        'blockNumber',
        'timeStamp',
        'hash',
        'nonce',
        'blockHash',
        'from',
        'contractAddress',
        'to',
        'value',
        'tokenName',
        'tokenSymbol',
        'tokenDecimal',
        'transactionIndex',
        'gas',
        'gasPrice',
        'gasUsed',
        'cumulativeGasUsed',
        'input',
        'confirmations',
      ].sort(),
    );
    expect(res.result[0]).toMatchObject({
      from: '0x0000000000000000000000000000000000000000',
      to: holder.toLowerCase(),
      contractAddress: address,
      value: String(5n * 10n ** 18n),
      tokenName: 'Alchemy Coin',
      tokenSymbol: 'ALC',
      tokenDecimal: '18',
    });
    const byToken = await etherscan(`module=account&action=tokentx&contractaddress=${address}&page=2&offset=1`);
    expect(byToken.result.map((t: any) => t.to)).toEqual([other.toLowerCase()]);
    expect(await etherscan(`module=account&action=tokennfttx&address=${holder}`)).toEqual({
      status: '0',
      message: 'No transactions found',
      result: [],
    });
  });

  it('tokenbalance, tokenlist and tokensupply answer from the index and the contract', async () => {
    const address = (await coin.getAddress()).toLowerCase();
    expect(await etherscan(`module=account&action=tokenbalance&contractaddress=${address}&address=${holder}`)).toEqual({
      status: '1',
      message: 'OK',
      result: String(5n * 10n ** 18n),
    });
    const list = await etherscan(`module=account&action=tokenlist&address=${other}`);
    expect(list.result).toEqual([
      { balance: '7', contractAddress: address, decimals: '18', name: 'Alchemy Coin', symbol: 'ALC', type: 'ERC-20' },
    ]);
    expect((await etherscan(`module=stats&action=tokensupply&contractaddress=${address}`)).result).toBe(
      String(5n * 10n ** 18n + 7n),
    );
  });
});
