import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { createLogger } from '../kernel/logger';
import { LOCAL_NODE_FUNDED_KEY, startLocalNode, type LocalNode } from './local-node';
import { waitForReceipt } from './receipt-wait';

/**
 * Against a real anvil that makes blocks only when told (as a QBFT network with an empty-block
 * period makes none while idle). One test puts a relay before it that mines a block between a
 * receipt check and its answer: the timing a busy node shows now and then, made certain.
 */
const CHAIN_ID = 17991;
let node: LocalNode;
let relay: Server;
let relayUrl: string;
/** When set, the next receipt asked for through the relay and not found is answered only after a block is mined. */
let mineOnNextMiss = false;
/** Receipt requests through the relay still to be answered with a JSON-RPC error (a node's bad moment). */
let failReceipts = 0;

const rpc = async (url: string, method: string, params: unknown[] = []) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
};

const connect = (url: string) =>
  new JsonRpcProvider(url, CHAIN_ID, { staticNetwork: true, batchMaxCount: 1, pollingInterval: 100 });

beforeAll(async () => {
  node = await startLocalNode({ chainId: CHAIN_ID, blockTime: 1, logger: createLogger('silent') });
  await rpc(node.url, 'evm_setIntervalMining', [0]);
  await rpc(node.url, 'evm_setAutomine', [false]);
  relay = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', async () => {
      const request = JSON.parse(body) as { method: string; id: unknown };
      if (failReceipts > 0 && request.method === 'eth_getTransactionReceipt') {
        failReceipts--;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code: -32000, message: 'busy' } }));
        return;
      }
      const answer = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const text = await answer.text();
      if (mineOnNextMiss && request.method === 'eth_getTransactionReceipt' && JSON.parse(text).result === null) {
        mineOnNextMiss = false;
        await rpc(node.url, 'evm_mine');
        // Past ethers' 250 ms request cache, so that its next head is the new block's.
        await new Promise((r) => setTimeout(r, 400));
      }
      res.setHeader('content-type', 'application/json');
      res.end(text);
    });
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  relayUrl = `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
});

afterAll(async () => {
  relay?.close();
  await node?.stop();
});

async function pendingTransfer(): Promise<string> {
  const wallet = new Wallet(LOCAL_NODE_FUNDED_KEY, connect(node.url));
  const tx = await wallet.sendTransaction({ to: Wallet.createRandom().address, value: parseEther('1') });
  return tx.hash;
}

describe('waitForReceipt', () => {
  it('finds a transaction mined between its check and the answer, with no block after it', async () => {
    const hash = await pendingTransfer();
    const provider = connect(relayUrl);
    mineOnNextMiss = true;
    const started = Date.now();
    const receipt = await waitForReceipt(provider, hash, { timeoutMs: 5_000, pollMs: 100 });
    expect(receipt?.hash).toBe(hash);
    expect(receipt?.status).toBe(1);
    // One block was mined, and no other: found at the next poll, not at the timeout.
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(receipt?.blockNumber).toBe(Number(await rpc(node.url, 'eth_blockNumber')));
    provider.destroy();
  });

  it('finds a transaction mined while it waits', async () => {
    const hash = await pendingTransfer();
    const provider = connect(node.url);
    const waiting = waitForReceipt(provider, hash, { timeoutMs: 5_000, pollMs: 100 });
    await new Promise((r) => setTimeout(r, 300));
    await rpc(node.url, 'evm_mine');
    expect((await waiting)?.hash).toBe(hash);
    provider.destroy();
  });

  it('keeps waiting through failed receipt checks', async () => {
    const hash = await pendingTransfer();
    const provider = connect(relayUrl);
    failReceipts = 3;
    const waiting = waitForReceipt(provider, hash, { timeoutMs: 5_000, pollMs: 100 });
    await new Promise((r) => setTimeout(r, 300));
    await rpc(node.url, 'evm_mine');
    expect((await waiting)?.hash).toBe(hash);
    expect(failReceipts).toBe(0);
    provider.destroy();
  });

  it('answers null at the timeout for a transaction never mined', async () => {
    const hash = await pendingTransfer();
    const provider = connect(node.url);
    const started = Date.now();
    expect(await waitForReceipt(provider, hash, { timeoutMs: 600, pollMs: 100 })).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    await rpc(node.url, 'evm_mine');
    provider.destroy();
  });

  it('gives up at once when `ended` says the transaction will not be mined, and not before', async () => {
    const hash = await pendingTransfer();
    const provider = connect(node.url);
    let over = false;
    let asked = 0;
    const started = Date.now();
    const waiting = waitForReceipt(provider, hash, {
      timeoutMs: 20_000,
      pollMs: 100,
      ended: async () => {
        asked++;
        return over;
      },
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(asked).toBeGreaterThan(0);
    over = true;
    expect(await waiting).toBeNull();
    // Within the next receipt check (the head does not move: once a second), far from the timeout.
    expect(Date.now() - started).toBeLessThan(6_000);
    await rpc(node.url, 'evm_mine');
    provider.destroy();
  });

  it('throws when the node cannot be reached at all', async () => {
    const provider = connect('http://127.0.0.1:9');
    await expect(waitForReceipt(provider, `0x${'ab'.repeat(32)}`, { timeoutMs: 1_000, pollMs: 100 })).rejects.toThrow();
    provider.destroy();
  });
});
