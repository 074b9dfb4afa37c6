import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JsonRpcProvider, Wallet, parseEther } from 'ethers';
import { createLogger } from '../kernel/logger';
import { LOCAL_NODE_FUNDED_KEY, startLocalNode, type LocalNode } from './local-node';

const logger = createLogger('silent');

/** A plain provider that polls quickly, so that waiting for a receipt takes about one block. */
const connect = (url: string, chainId: number) =>
  new JsonRpcProvider(url, chainId, { staticNetwork: true, cacheTimeout: -1, pollingInterval: 100 });

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startLocalNode', () => {
  let testnet: LocalNode;
  let mainnet: LocalNode;
  let testnetProvider: JsonRpcProvider;

  beforeAll(async () => {
    [testnet, mainnet] = await Promise.all([
      startLocalNode({ chainId: 17991, blockTime: 1, logger }),
      startLocalNode({ chainId: 1991, blockTime: 1, logger }),
    ]);
    testnetProvider = connect(testnet.url, 17991);
  });

  afterAll(async () => {
    testnetProvider?.destroy();
    await Promise.all([testnet?.stop(), mainnet?.stop()]);
  });

  it('answers eth_chainId with the requested chain id on its own port', async () => {
    expect(testnet.url).not.toEqual(mainnet.url);
    const mainnetProvider = connect(mainnet.url, 1991);
    try {
      expect(Number(await testnetProvider.send('eth_chainId', []))).toBe(17991);
      expect(Number(await mainnetProvider.send('eth_chainId', []))).toBe(1991);
    } finally {
      mainnetProvider.destroy();
    }
  });

  it('funds the well-known account #0', async () => {
    const faucet = new Wallet(LOCAL_NODE_FUNDED_KEY);
    expect(faucet.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(await testnetProvider.getBalance(faucet.address)).toBeGreaterThanOrEqual(parseEther('9000'));
  });

  it('runs the paris hardfork: init code with PUSH0 fails, the same with PUSH1 0 succeeds', async () => {
    const wallet = new Wallet(LOCAL_NODE_FUNDED_KEY, testnetProvider);
    // Both return empty runtime code: RETURN(offset 0, size 0). Only the way of pushing zeros differs.
    const withPush0 = '0x5f5ff3'; // PUSH0 PUSH0 RETURN
    const withoutPush0 = '0x60006000f3'; // PUSH1 0 PUSH1 0 RETURN
    // A fixed gas limit skips estimation so that the failing creation is really mined.
    const failing = await wallet.sendTransaction({ data: withPush0, gasLimit: 100_000 });
    const failingReceipt = await testnetProvider.waitForTransaction(failing.hash, 1, 10_000);
    expect(failingReceipt?.status).toBe(0);
    const succeeding = await wallet.sendTransaction({ data: withoutPush0, gasLimit: 100_000 });
    const succeedingReceipt = await testnetProvider.waitForTransaction(succeeding.hash, 1, 10_000);
    expect(succeedingReceipt?.status).toBe(1);
    expect(succeedingReceipt?.contractAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it('stop() ends the process', async () => {
    const node = await startLocalNode({ chainId: 17991, blockTime: 1, logger });
    expect(processExists(node.pid)).toBe(true);
    await node.stop();
    expect(processExists(node.pid)).toBe(false);
    await node.stop(); // a second stop is harmless
  });

  it('keeps the chain in stateDir across restarts', async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'local-node-'));
    try {
      const first = await startLocalNode({ chainId: 1991, blockTime: 1, logger, stateDir });
      const firstProvider = connect(first.url, 1991);
      const recipient = Wallet.createRandom().address;
      const wallet = new Wallet(LOCAL_NODE_FUNDED_KEY, firstProvider);
      const tx = await wallet.sendTransaction({ to: recipient, value: 12345n });
      await firstProvider.waitForTransaction(tx.hash, 1, 10_000);
      firstProvider.destroy();
      await first.stop();
      expect(existsSync(path.join(stateDir, 'anvil-1991.json'))).toBe(true);

      const second = await startLocalNode({ chainId: 1991, blockTime: 1, logger, stateDir });
      const secondProvider = connect(second.url, 1991);
      try {
        expect(await secondProvider.getBalance(recipient)).toBe(12345n);
      } finally {
        secondProvider.destroy();
        await second.stop();
      }
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it('reports a clear error when the port is taken', async () => {
    const port = Number(new URL(testnet.url).port);
    await expect(startLocalNode({ chainId: 17991, blockTime: 1, logger, port })).rejects.toThrow(
      /did not start \(anvil stopped with exit code 1\).*Address already in use/,
    );
  });
});
