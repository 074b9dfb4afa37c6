/* eslint-disable @typescript-eslint/no-explicit-any -- JSON-RPC answers are asserted field by field */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  Contract,
  FetchRequest,
  JsonRpcProvider,
  Wallet as EthersWallet,
  parseEther as ethersParseEther,
} from 'ethers';
import type { PublicClient } from 'viem' with { 'resolution-mode': 'import' };
import { client, type Client } from './kit/http';
import { login, type LoggedIn } from './kit/login';
import { ANVIL_KEYS, providerOf } from './kit/chain';
import { deployRegistered, newKey, type DeployedContract } from './kit/flows';
import { COUNTER_SOURCE, TOKEN_SOURCE } from './kit/solidity';
import { startStack, type Stack } from './kit/stack';
import { describeAnyFront, itAnyFront } from './jest-kit/fronts';

// The JSON-RPC door (docs/api.md, "JSON-RPC door") driven by the clients teams use: viem, ethers
// and foundry's cast, against the running service and real anvil chains.

const run = promisify(execFile);
const CAST = path.resolve(__dirname, '../node_modules/.bin/cast');

let stack: Stack;
let api: Client;
let dev: LoggedIn;
let token: DeployedContract;
let counter: DeployedContract;
let readKey: string;
let writeKey: string;
const logLines: string[] = [];

// viem is an ES module for the type checker; its CommonJS build is what the tests load.
type Viem = typeof import('viem', { with: { 'resolution-mode': 'import' } });
let viemLib: Viem;
let privateKeyToAccount: (typeof import('viem/accounts', {
  with: { 'resolution-mode': 'import' },
}))['privateKeyToAccount'];
const testnetChain = () =>
  viemLib.defineChain({
    id: 17991,
    name: 'QBFT testnet',
    nativeCurrency: { name: 'Coin', symbol: 'C', decimals: 18 },
    rpcUrls: { default: { http: ['http://unused.invalid'] } },
  });

const rpcUrl = (key: string, network = 'testnet') => `${stack.url}/rpc/${network}/${key}`;
const viemClient = (key: string): PublicClient =>
  viemLib.createPublicClient({
    chain: testnetChain(),
    transport: viemLib.http(rpcUrl(key), { retryCount: 0 }),
  }) as PublicClient;

/** One raw JSON-RPC exchange, for the refusals the clients would only report as thrown errors. */
async function raw(body: unknown, opts: { key?: string; network?: string; headers?: Record<string, string> } = {}) {
  const url = opts.key === undefined ? `${stack.url}/rpc/${opts.network ?? 'testnet'}` : rpcUrl(opts.key, opts.network);
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...opts.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}
const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
});

beforeAll(async () => {
  viemLib = await import('viem');
  ({ privateKeyToAccount } = await import('viem/accounts'));
  stack = await startStack({ LOG_LEVEL: 'debug' }, undefined, logLines);
  api = client(stack.url);
  dev = await login(api, stack.ca);
  await api.post('/api/devportal/faucet/drip', {}, { token: dev.token });
  token = await deployRegistered(api, dev, TOKEN_SOURCE, ['1000000']);
  counter = await deployRegistered(api, dev, COUNTER_SOURCE);
  readKey = (await newKey(api, dev, { name: 'read', scopes: ['read'] })).apiKey;
  writeKey = (await newKey(api, dev, { name: 'write', scopes: ['read', 'write'] })).apiKey;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('viem over HTTP', () => {
  it('reads the chain, a contract, logs and gas through the door', async () => {
    const viem = viemClient(readKey);
    expect(await viem.getChainId()).toBe(17991);
    const node = providerOf(stack, 'testnet');
    const nodeHead = await node.getBlockNumber();
    expect(Number(await viem.getBlockNumber({ cacheTime: 0 }))).toBeGreaterThanOrEqual(nodeHead);
    expect(await viem.getBalance({ address: dev.walletAddress as `0x${string}` })).toBe(
      await node.getBalance(dev.walletAddress),
    );
    const abi = viemLib.parseAbi([
      'function balanceOf(address) view returns (uint256)',
      'function totalSupply() view returns (uint256)',
      'event Transfer(address indexed from, address indexed to, uint256 value)',
      'error NotEnough(uint256 wanted, uint256 available)',
      'function burnExactly(uint256 amount)',
    ]);
    const address = token.address as `0x${string}`;
    expect(await viem.readContract({ address, abi, functionName: 'totalSupply' })).toBe(1_000_000n);
    expect(
      await viem.readContract({ address, abi, functionName: 'balanceOf', args: [dev.walletAddress as `0x${string}`] }),
    ).toBe(1_000_000n);
    const logs = await viem.getLogs({ address, event: abi[2], fromBlock: 0n, toBlock: 'latest' });
    expect(logs).toHaveLength(1);
    expect(logs[0]!.args).toEqual({
      from: '0x0000000000000000000000000000000000000000',
      to: dev.walletAddress,
      value: 1_000_000n,
    });
    const gas = await viem.estimateGas({
      account: dev.walletAddress as `0x${string}`,
      to: address,
      data: viemLib.encodeFunctionData({ abi, functionName: 'burnExactly', args: [1n] }),
    });
    expect(gas).toBeGreaterThan(21_000n);
    // A revert keeps the node's code and data: viem decodes the custom error from it.
    await expect(
      viem.simulateContract({
        address,
        abi,
        functionName: 'burnExactly',
        args: [5_000_000n],
        account: '0x000000000000000000000000000000000000dEaD',
      }),
    ).rejects.toThrow(/NotEnough/);
  });

  it('sends a raw transaction with a write key on testnet, and the receipt comes back through the door', async () => {
    const account = privateKeyToAccount(ANVIL_KEYS[1] as `0x${string}`);
    const wallet = viemLib.createWalletClient({
      account,
      chain: testnetChain(),
      transport: viemLib.http(rpcUrl(writeKey), { retryCount: 0 }),
    });
    const to = '0x000000000000000000000000000000000000c0fe';
    // Above the Besu front's --min-gas-price (2 gwei), which viem's estimate on a dev chain is not.
    const hash = await wallet.sendTransaction({ to, value: viemLib.parseEther('0.5'), gasPrice: 3_000_000_000n });
    const receipt = await viemClient(readKey).waitForTransactionReceipt({ hash, pollingInterval: 100 });
    expect(receipt.status).toBe('success');
    expect(await providerOf(stack, 'testnet').getBalance(to)).toBe(ethersParseEther('0.5'));
    // Read after the receipt through the door: never older than the receipt's block.
    expect(await viemClient(readKey).getBalance({ address: to })).toBe(viemLib.parseEther('0.5'));
  });
});

describeAnyFront('reads at the head', () => {
  it('answers balance, code and nonce at latest from the read cache, fresh after the next block', async () => {
    // Served by the read cache: from a block's answers, or uncached at latest while the head is stale.
    const hits = async () => {
      const text = await (await fetch(`${stack.url}/metrics`)).text();
      const counter = (name: string) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(text)?.[1]);
      return counter('gateway_read_cache_hits_total') + counter('gateway_read_cache_bypassed_total');
    };
    const node = providerOf(stack, 'testnet');
    const account = EthersWallet.createRandom().address;
    const balance = () => raw(call('eth_getBalance', [account, 'latest']), { key: readKey });
    expect((await balance()).body.result).toBe('0x0');
    const before = await hits();
    expect((await balance()).body.result).toBe('0x0');
    expect(await hits()).toBeGreaterThan(before);
    const code = await raw(call('eth_getCode', [token.address, 'latest']), { key: readKey });
    expect(code.body.result).toBe(await node.getCode(token.address));
    const nonce = await raw(call('eth_getTransactionCount', [dev.walletAddress]), { key: readKey });
    expect(BigInt(nonce.body.result)).toBe(BigInt(await node.getTransactionCount(dev.walletAddress, 'latest')));

    const funder = new EthersWallet(ANVIL_KEYS[1]!, node);
    const receipt = await (await funder.sendTransaction({ to: account, value: 12345n })).wait();
    // Never older than the head the service knows: within a block or so of the receipt.
    let seen = '';
    for (let i = 0; i < 40 && seen !== '0x3039'; i++) {
      seen = (await balance()).body.result;
      if (seen !== '0x3039') await new Promise((r) => setTimeout(r, 100));
    }
    expect(seen).toBe('0x3039');
    expect(receipt!.status).toBe(1);
  });
});

describe('ethers v6 JsonRpcProvider', () => {
  it('reads and sends through the door with the key in a header', async () => {
    const request = new FetchRequest(`${stack.url}/rpc/testnet`);
    request.setHeader('x-api-key', writeKey);
    const provider = new JsonRpcProvider(request, 17991, { staticNetwork: true, pollingInterval: 100 });
    expect((await provider.getNetwork()).chainId).toBe(17991n);
    const c = new Contract(
      counter.address,
      ['function count() view returns (uint256)', 'function increment()'],
      provider,
    );
    const before = (await c.getFunction('count')()) as bigint;
    const signer = new EthersWallet(ANVIL_KEYS[2]!, provider);
    // A price above the Besu front's --min-gas-price (2 gwei): ethers' own estimate from a dev chain's
    // tiny base fee is below it, and a Besu node refuses that as this one does.
    const tx = await (c.connect(signer) as Contract).getFunction('increment')({ gasPrice: 3_000_000_000n });
    const receipt = await tx.wait();
    expect(receipt.status).toBe(1);
    expect(await c.getFunction('count')({ blockTag: receipt.blockNumber })).toBe(before + 1n);
    provider.destroy();
  });
});

describeAnyFront('cast', () => {
  it('answers chain-id, block-number, balance and call', async () => {
    const url = rpcUrl(readKey);
    const cast = async (...args: string[]) =>
      (await run(CAST, [...args, '--rpc-url', url], { timeout: 30_000 })).stdout.trim();
    expect(await cast('chain-id')).toBe('17991');
    expect(Number(await cast('block-number'))).toBeGreaterThan(0);
    const balance = await providerOf(stack, 'testnet').getBalance(dev.walletAddress);
    expect(await cast('balance', dev.walletAddress)).toBe(balance.toString());
    expect(await cast('call', token.address, 'totalSupply()(uint256)')).toBe('1000000 [1e6]');
  }, 60_000);
});

describe('refusals', () => {
  itAnyFront('a method outside the set is -32601 naming it, in a 200 answer', async () => {
    for (const method of ['admin_peers', 'debug_traceTransaction', 'personal_sign', 'eth_sign', 'txpool_content']) {
      const res = await raw(call(method), { key: readKey });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32601, message: `the method ${method} does not exist/is not available` },
      });
    }
    // Subscriptions need a WebSocket.
    expect((await raw(call('eth_subscribe', ['newHeads']), { key: readKey })).body.error.code).toBe(-32601);
  });

  itAnyFront('no key, an unknown or a revoked key is HTTP 401 with error -32001', async () => {
    const none = await raw(call('eth_blockNumber'));
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32001 } });
    expect((await raw(call('eth_blockNumber'), { key: 'svc_unknown' })).status).toBe(401);
    const doomed = await newKey(api, dev, { name: 'doomed', scopes: ['read'] });
    expect((await raw(call('eth_blockNumber'), { key: doomed.apiKey })).status).toBe(200);
    await api.del(`/api/devportal/api-keys/${doomed.id}`, { token: dev.token });
    const revoked = await raw(call('eth_blockNumber'), { key: doomed.apiKey });
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.code).toBe(-32001);
    // The key also travels in Authorization: Bearer.
    const bearer = await raw(call('eth_chainId'), { headers: { authorization: `Bearer ${readKey}` } });
    expect(bearer.body).toEqual({ jsonrpc: '2.0', id: 1, result: '0x4647' });
  });

  itAnyFront('a read key cannot send (-32003); nothing reaches the chain', async () => {
    const wallet = new EthersWallet(ANVIL_KEYS[1]!);
    const nonce = await providerOf(stack, 'testnet').getTransactionCount(wallet.address);
    const signed = await wallet.signTransaction({
      to: wallet.address,
      value: 1n,
      nonce,
      gasLimit: 21_000n,
      gasPrice: 10_000_000_000n,
      chainId: 17991n,
    });
    const res = await raw(call('eth_sendRawTransaction', [signed]), { key: readKey });
    expect(res.body.error.code).toBe(-32003);
    expect(await providerOf(stack, 'testnet').getTransactionCount(wallet.address)).toBe(nonce);
  });

  itAnyFront(
    'mainnet takes no contract creation and no other target than the developer’s deployed contracts',
    async () => {
      const wallet = new EthersWallet(ANVIL_KEYS[1]!);
      const creation = await wallet.signTransaction({
        data: '0x6080',
        nonce: 0,
        gasLimit: 100_000n,
        gasPrice: 10_000_000_000n,
        chainId: 1991n,
      });
      const transfer = await wallet.signTransaction({
        to: wallet.address,
        value: 1n,
        nonce: 0,
        gasLimit: 21_000n,
        gasPrice: 10_000_000_000n,
        chainId: 1991n,
      });
      for (const signed of [creation, transfer]) {
        const res = await raw(call('eth_sendRawTransaction', [signed]), { key: writeKey, network: 'mainnet' });
        expect(res.body.error).toEqual({
          code: -32003,
          message: "mainnet deployments go through the portal's approval",
        });
      }
      expect(await providerOf(stack, 'mainnet').getTransactionCount(wallet.address)).toBe(0);
    },
  );

  itAnyFront(
    'a key restricted to a contract reads only that contract (-32602 otherwise); chain reads stay allowed',
    async () => {
      const narrow = (await newKey(api, dev, { name: 'narrow', scopes: ['read'], contractId: token.id })).apiKey;
      const viem = viemClient(narrow);
      const abi = viemLib.parseAbi([
        'function totalSupply() view returns (uint256)',
        'function count() view returns (uint256)',
      ]);
      expect(
        await viem.readContract({ address: token.address as `0x${string}`, abi, functionName: 'totalSupply' }),
      ).toBe(1_000_000n);
      const other = await raw(call('eth_call', [{ to: counter.address, data: '0x06661abd' }, 'latest']), {
        key: narrow,
      });
      expect(other.body.error.code).toBe(-32602);
      const logsOfAll = await raw(call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]), { key: narrow });
      expect(logsOfAll.body.error.code).toBe(-32602);
      const logsOfToken = await raw(
        call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: token.address }]),
        {
          key: narrow,
        },
      );
      // OwnershipTransferred and the minting Transfer, both of the token.
      expect(logsOfToken.body.result.map((l: any) => l.address)).toEqual([
        token.address.toLowerCase(),
        token.address.toLowerCase(),
      ]);
      expect(Number(await viem.getBlockNumber())).toBeGreaterThan(0);
    },
  );

  itAnyFront('eth_getLogs over 5,000 blocks is -32005 naming the limit', async () => {
    const res = await raw(call('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x1388' }]), { key: readKey });
    expect(res.body.error.code).toBe(-32005);
    expect(res.body.error.message).toContain('5000');
    const fits = await raw(call('eth_getLogs', [{ fromBlock: '0x1', toBlock: '0x1388' }]), { key: readKey });
    expect(fits.body.result).toEqual(expect.any(Array));
  });

  it('batches: answers in order, 100 at most (-32005), an empty one and bad JSON in geth’s words', async () => {
    const batch = await raw([call('eth_chainId', [], 'a'), call('net_version', [], 'b'), call('nope_x', [], 'c')], {
      key: readKey,
    });
    expect(batch.body).toEqual([
      { jsonrpc: '2.0', id: 'a', result: '0x4647' },
      { jsonrpc: '2.0', id: 'b', result: '17991' },
      {
        jsonrpc: '2.0',
        id: 'c',
        error: { code: -32601, message: 'the method nope_x does not exist/is not available' },
      },
    ]);
    const big = await raw(
      Array.from({ length: 101 }, (_, i) => call('eth_chainId', [], i)),
      { key: readKey },
    );
    expect(big.status).toBe(200);
    expect(big.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32005 } });
    expect((await raw([], { key: readKey })).body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'empty batch' },
    });
    expect((await raw('{"jsonrpc":', { key: readKey })).body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'parse error' },
    });
    expect((await raw(call('eth_chainId'), { key: readKey, network: 'moon' })).status).toBe(404);
  });
});

describeAnyFront('bookkeeping', () => {
  it('never logs a key given in the path', () => {
    const all = logLines.join('\n');
    expect(all).toContain('/rpc/testnet/[redacted]');
    for (const key of [readKey, writeKey]) expect(all).not.toContain(key);
  });

  it('counts every call, each of a batch, in analytics as rpc', async () => {
    const key = await newKey(api, dev, { name: 'counted', scopes: ['read'] });
    await raw([call('eth_chainId'), call('eth_blockNumber'), call('admin_peers')], { key: key.apiKey });
    const res = await api.get(`/api/devportal/developers/${dev.developerId}/analytics?days=1`, { token: dev.token });
    expect(res.status).toBe(200);
    const counted = res.body.byApiKey.find((k: any) => k.keyId === key.id);
    expect(counted).toMatchObject({ requests: 3, errors: 1 });
    expect(res.body.totals.rpc).toBeGreaterThanOrEqual(3);
    expect(res.body.daily.at(-1).rpc).toBe(res.body.totals.rpc);
  });
});

describe('WebSocket', () => {
  const wsUrl = (key: string, network = 'testnet') => `${stack.url.replace(/^http/, 'ws')}/rpc/${network}/${key}`;

  it('an upgrade without a valid key is HTTP 401', async () => {
    const WebSocket = (await import('ws')).default;
    for (const url of [`${stack.url.replace(/^http/, 'ws')}/rpc/testnet`, wsUrl('svc_unknown')]) {
      const status = await new Promise<number>((resolve) => {
        const socket = new WebSocket(url);
        socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        socket.once('open', () => resolve(101));
        socket.once('error', () => undefined);
      });
      expect(status).toBe(401);
    }
  });

  it('viem: calls, watchBlocks in order without a gap, and watchContractEvent', async () => {
    const viem = viemLib.createPublicClient({
      chain: testnetChain(),
      transport: viemLib.webSocket(wsUrl(readKey), { retryCount: 0 }),
    });
    expect(await viem.getChainId()).toBe(17991);
    const seen: bigint[] = [];
    const events: unknown[] = [];
    const blocks = new Promise<void>((resolve) => {
      const stop = viem.watchBlockNumber({
        onBlockNumber: (n) => {
          seen.push(n);
          if (seen.length === 4) {
            stop();
            resolve();
          }
        },
      });
    });
    const abi = viemLib.parseAbi(['event Incremented(address indexed by, uint256 count)']);
    const stopEvents = viem.watchContractEvent({
      address: counter.address as `0x${string}`,
      abi,
      onLogs: (logs) => events.push(...logs.map((l) => l.args)),
    });
    const signer = new EthersWallet(ANVIL_KEYS[2]!, providerOf(stack, 'testnet'));
    const c = new Contract(counter.address, ['function increment()'], signer);
    await (await c.getFunction('increment')()).wait();
    await blocks;
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBe(seen[i - 1]! + 1n);
    for (let i = 0; i < 50 && events.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    stopEvents();
    expect(events).toEqual([expect.objectContaining({ by: signer.address })]);
    await viem.transport.getRpcClient?.().then((rpc: { close(): void }) => rpc.close());
  }, 60_000);

  itAnyFront('refuses a logs filter too large or malformed to share (-32602)', async () => {
    const WebSocket = (await import('ws')).default;
    const socket = new WebSocket(wsUrl(readKey));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const answers = new Map<number, any>();
    socket.on('message', (data: Buffer) => {
      const msg = JSON.parse(data.toString());
      if (typeof msg.id === 'number') answers.set(msg.id, msg);
    });
    const hash = `0x${'ab'.repeat(32)}`;
    const filters = [
      { address: Array.from({ length: 101 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`) },
      { topics: [Array.from({ length: 101 }, () => hash)] },
      { topics: [hash, hash, hash, hash, hash] },
      { topics: ['not a hash'] },
    ];
    filters.forEach((f, i) => socket.send(JSON.stringify(call('eth_subscribe', ['logs', f], i + 1))));
    for (let i = 0; i < 50 && answers.size < filters.length; i++) await new Promise((r) => setTimeout(r, 50));
    for (let i = 1; i <= filters.length; i++) expect(answers.get(i)?.error?.code).toBe(-32602);
    socket.close();
  });

  it('ethers WebSocketProvider follows blocks over eth_subscribe', async () => {
    const { WebSocketProvider } = await import('ethers');
    const provider = new WebSocketProvider(wsUrl(readKey), 17991, { staticNetwork: true });
    const seen: number[] = [];
    await new Promise<void>((resolve) => {
      void provider.on('block', (n: number) => {
        seen.push(n);
        if (seen.length === 3) resolve();
      });
    });
    for (let i = 1; i < seen.length; i++) expect(seen[i]).toBe(seen[i - 1]! + 1);
    await provider.destroy();
  }, 60_000);

  it('live newHeads: every subscription of every connection gets each header once and in order; one unsubscribed or closed stops alone', async () => {
    const WebSocket = (await import('ws')).default;
    const open = async () => {
      const socket = new WebSocket(wsUrl(readKey));
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const messages: any[] = [];
      socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString())));
      return { socket, messages };
    };
    const until = async (what: string, done: () => boolean) => {
      for (let i = 0; i < 300 && !done(); i++) await new Promise((r) => setTimeout(r, 100));
      if (!done()) throw new Error(`timed out waiting for ${what}`);
    };
    const [a, b, c] = [await open(), await open(), await open()];
    a.socket.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 1)));
    a.socket.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 2)));
    b.socket.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 1)));
    c.socket.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 1)));
    const idOf = (conn: typeof a, id: number) => conn.messages.find((m) => m.id === id)?.result as string | undefined;
    /** The headers a subscription was sent, in the order they came. */
    const headersOf = (conn: typeof a, subscription: string | undefined) =>
      conn.messages.filter((m) => m.params?.subscription === subscription).map((m) => m.params.result);
    await until('the subscriptions', () => [idOf(a, 1), idOf(a, 2), idOf(b, 1), idOf(c, 1)].every(Boolean));
    const [a1, a2, b1, c1] = [idOf(a, 1), idOf(a, 2), idOf(b, 1), idOf(c, 1)];
    expect(new Set([a1, a2, b1, c1]).size).toBe(4);
    await until('two headers each', () =>
      [headersOf(a, a1), headersOf(a, a2), headersOf(b, b1), headersOf(c, c1)].every((h) => h.length >= 2),
    );
    // One unsubscribed, one connection closed: the others go on.
    c.socket.close();
    a.socket.send(JSON.stringify(call('eth_unsubscribe', [a2], 3)));
    await until('the unsubscribe', () => idOf(a, 3) !== undefined);
    expect(idOf(a, 3)).toBe(true);
    const a2Count = headersOf(a, a2).length;
    const a1Count = headersOf(a, a1).length;
    const b1Count = headersOf(b, b1).length;
    await until(
      'two more headers',
      () => headersOf(a, a1).length >= a1Count + 2 && headersOf(b, b1).length >= b1Count + 2,
    );
    expect(headersOf(a, a2)).toHaveLength(a2Count);
    for (const headers of [headersOf(a, a1), headersOf(b, b1)]) {
      const numbers = headers.map((h) => Number(h.number));
      for (let i = 1; i < numbers.length; i++) expect(numbers[i]).toBe(numbers[i - 1]! + 1);
    }
    // The same header for every subscription of a block.
    const byNumber = new Map(headersOf(b, b1).map((h) => [h.number, h]));
    for (const h of headersOf(a, a1)) if (byNumber.has(h.number)) expect(h).toEqual(byNumber.get(h.number));
    a.socket.close();
    b.socket.close();
  }, 60_000);

  it('live newHeads: the connection closes with 1008 at the first header after its key is revoked', async () => {
    const WebSocket = (await import('ws')).default;
    const doomed = await newKey(api, dev, { name: 'doomed live', scopes: ['read'] });
    const socket = new WebSocket(wsUrl(doomed.apiKey));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    let headers = 0;
    const closed = new Promise<number>((resolve) => socket.once('close', (code: number) => resolve(code)));
    const first = new Promise<void>((resolve) =>
      socket.on('message', (data: Buffer) => {
        if (JSON.parse(data.toString()).method !== 'eth_subscription') return;
        headers += 1;
        resolve();
      }),
    );
    socket.send(JSON.stringify(call('eth_subscribe', ['newHeads'], 1)));
    await first;
    expect((await api.del(`/api/devportal/api-keys/${doomed.id}`, { token: dev.token })).status).toBe(200);
    const seen = headers;
    expect(await closed).toBe(1008);
    expect(headers).toBe(seen);
  }, 60_000);

  it('newHeads sends headers as the node does, and first replays from fromBlock', async () => {
    const WebSocket = (await import('ws')).default;
    const socket = new WebSocket(wsUrl(readKey));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const node = providerOf(stack, 'testnet');
    const from = Math.max(0, (await node.getBlockNumber()) - 3);
    const headers: any[] = [];
    let subscription: string | undefined;
    const done = new Promise<void>((resolve) => {
      socket.on('message', (data: Buffer) => {
        const msg = JSON.parse(data.toString());
        if (msg.id === 7) subscription = msg.result;
        if (msg.method === 'eth_subscription') {
          expect(msg.params.subscription).toBe(subscription);
          headers.push(msg.params.result);
          if (headers.length === 6) resolve();
        }
      });
    });
    socket.send(JSON.stringify(call('eth_subscribe', ['newHeads', { fromBlock: `0x${from.toString(16)}` }], 7)));
    await done;
    expect(subscription).toMatch(/^0x[0-9a-f]{32}$/);
    expect(headers.map((h) => Number(h.number))).toEqual([from, from + 1, from + 2, from + 3, from + 4, from + 5]);
    const expected = await node.send('eth_getBlockByNumber', [headers[1].number, false]);
    for (const field of ['transactions', 'uncles', 'size', 'totalDifficulty', 'withdrawals']) delete expected[field];
    expect(headers[1]).toEqual(expected);
    const unsubscribed = new Promise((resolve) =>
      socket.on('message', (data: Buffer) => {
        const msg = JSON.parse(data.toString());
        if (msg.id === 8) resolve(msg.result);
      }),
    );
    socket.send(JSON.stringify(call('eth_unsubscribe', [subscription], 8)));
    expect(await unsubscribed).toBe(true);
    socket.close();
  }, 60_000);
});
