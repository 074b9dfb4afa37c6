import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonRpcProvider, keccak256, Wallet } from 'ethers';
import { AppError } from '../kernel/errors/app-error';
import { createLogger, type Logger } from '../kernel/logger';
import { ChainRegistry } from './chain-registry';
import { LOCAL_NODE_FUNDED_KEY, startLocalNode, type LocalNode } from './local-node';
import { startBesuFront } from '../../tests/kit/besu-node';
import { capturingLogger } from '../../tests/kit/logs';
import { freePort } from '../kernel/ports';

const FUNDED_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** A real HTTP server answering every request with the given status; counts the requests. */
async function statusServer(status: number): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((_req, res) => {
    hits++;
    res.statusCode = status;
    res.end('unavailable');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/secret-api-key`,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function appErrorOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError, got success');
}

describe('ChainRegistry', () => {
  const silent = createLogger('silent');
  let testnet: LocalNode;
  let mainnet: LocalNode;
  let wrongChain: LocalNode;
  const registries: ChainRegistry[] = [];
  const laterNodes: LocalNode[] = [];

  const connect = async (urls: { testnet?: string; mainnet?: string }, logger: Logger = silent) => {
    const registry = await ChainRegistry.connect({ testnet: urls.testnet, mainnet: urls.mainnet }, logger);
    registries.push(registry);
    return registry;
  };

  beforeAll(async () => {
    [testnet, mainnet, wrongChain] = await Promise.all([
      startLocalNode({ chainId: 17991, blockTime: 1, logger: silent }),
      startLocalNode({ chainId: 1991, blockTime: 1, logger: silent }),
      startLocalNode({ chainId: 31337, blockTime: 1, logger: silent }),
    ]);
  });

  afterAll(async () => {
    for (const registry of registries) registry.destroy();
    await Promise.all([testnet, mainnet, wrongChain, ...laterNodes].map((node) => node?.stop()));
  });

  it('connects both networks when both nodes report the expected chain id', async () => {
    const registry = await connect({ testnet: testnet.url, mainnet: mainnet.url });
    expect(registry.isAvailable('testnet')).toBe(true);
    expect(registry.isAvailable('mainnet')).toBe(true);
    const provider = registry.provider('testnet');
    expect(provider).toBeInstanceOf(JsonRpcProvider);
    expect((await provider.getNetwork()).chainId).toBe(17991n);
    expect(await provider.getBalance(FUNDED_ADDRESS)).toBeGreaterThan(0n);
    expect(await registry.withRetry('mainnet', (p) => p.getBalance(FUNDED_ADDRESS))).toBeGreaterThan(0n);

    const health = await registry.health('mainnet');
    expect(health).toMatchObject({ network: 'mainnet', chainId: 1991, url: new URL(mainnet.url).host, healthy: true });
    expect(health.latencyMs).toBeGreaterThanOrEqual(0);
    expect(health.latencyMs).toBeLessThan(2_000);
    expect(typeof health.blockNumber).toBe('number');
    expect(health.error).toBeUndefined();
  });

  it('does not reuse a pending nonce for two quick transactions (no request cache)', async () => {
    const registry = await connect({ testnet: testnet.url, mainnet: mainnet.url });
    const provider = registry.provider('testnet');
    const wallet = new Wallet(LOCAL_NODE_FUNDED_KEY, provider);
    const recipient = Wallet.createRandom().address;
    const first = await wallet.sendTransaction({ to: recipient, value: 1n });
    const second = await wallet.sendTransaction({ to: recipient, value: 1n });
    expect(second.nonce).toBe(first.nonce + 1);
  });

  it('broadcasts a signed transaction once and passes on the node refusing it again', async () => {
    const registry = await connect({ testnet: testnet.url, mainnet: mainnet.url });
    const provider = registry.provider('testnet');
    // Its own key, so the nonce does not race the other tests' transactions.
    const wallet = Wallet.createRandom().connect(provider);
    await (
      await new Wallet(LOCAL_NODE_FUNDED_KEY, provider).sendTransaction({ to: wallet.address, value: 10n ** 18n })
    ).wait();
    const raw = await wallet.signTransaction({
      chainId: 17991,
      nonce: 0,
      to: FUNDED_ADDRESS,
      value: 1n,
      gasLimit: 21_000n,
      gasPrice: (await provider.getFeeData()).gasPrice!,
    });
    const hash = await registry.broadcast('testnet', raw);
    expect(hash).toBe(keccak256(raw));
    expect((await provider.waitForTransaction(hash, 1, 10_000))?.status).toBe(1);
    // The same nonce again: the node's refusal reaches the caller with its message.
    await expect(registry.broadcast('testnet', raw)).rejects.toThrow(/nonce|already known/i);
    expect(await provider.getTransactionCount(wallet.address)).toBe(1);
  });

  it('answers eth_call through the bare path and maps a revert to CALL_EXCEPTION with its data', async () => {
    const registry = await connect({ testnet: testnet.url, mainnet: mainnet.url });
    // No `to`: the data runs as code. PUSH1 2a PUSH1 0 MSTORE PUSH1 20 PUSH1 0 RETURN returns 32 bytes of 0x2a.
    const returns42 = '0x602a60005260206000f3';
    expect(BigInt(await registry.call('testnet', { to: null, data: returns42 }))).toBe(42n);
    // PUSH1 0 PUSH1 0 REVERT: a revert without data.
    await expect(registry.call('testnet', { to: null, data: '0x60006000fd' })).rejects.toMatchObject({
      code: 'CALL_EXCEPTION',
    });
  });

  it('refuses a network whose node reports another chain id and keeps the other one working', async () => {
    const { logger, lines } = capturingLogger();
    const registry = await connect({ testnet: wrongChain.url, mainnet: mainnet.url }, logger);

    expect(registry.isAvailable('testnet')).toBe(false);
    expect(() => registry.provider('testnet')).toThrow(AppError);
    const error = await appErrorOf(Promise.resolve().then(() => registry.provider('testnet')));
    expect(error.code).toBe('NETWORK_UNAVAILABLE');
    expect(error.message).toBe('The testnet network is not available');
    await expect(appErrorOf(registry.withRetry('testnet', (p) => p.getBlockNumber()))).resolves.toMatchObject({
      code: 'NETWORK_UNAVAILABLE',
    });
    const health = await registry.health('testnet');
    expect(health).toMatchObject({ healthy: false, latencyMs: null });
    expect(health.error).toMatch(/chain id mismatch: expected 17991, node reports 31337/);

    const refusal = lines.find((line) => line.level === 50 && line.network === 'testnet');
    expect(refusal).toMatchObject({ expectedChainId: 17991, actualChainId: 31337 });

    expect(registry.isAvailable('mainnet')).toBe(true);
    expect(await registry.provider('mainnet').getBlockNumber()).toBeGreaterThanOrEqual(0);
  });

  it('fails over past a node that is down and one on the wrong chain, checking the chain id of each', async () => {
    const { logger, lines } = capturingLogger();
    const down = `http://127.0.0.1:${await freePort()}`;
    const registry = ChainRegistry.connect({ testnet: { urls: [down, wrongChain.url, testnet.url] } }, logger);
    registries.push(await registry);
    const r = await registry;
    expect(r.isAvailable('testnet')).toBe(true);
    expect(await r.provider('testnet').getBlockNumber()).toBeGreaterThanOrEqual(0);
    expect(await r.provider('testnet').send('eth_chainId', [])).toBe('0x4647');
    expect(lines.find((line) => line.level === 50 && line.actualChainId === 31337)).toBeDefined();
    expect((await r.health('testnet')).healthy).toBe(true);
  });

  it('sends the configured headers (Besu JWT) with every request and never logs them', async () => {
    const front = await startBesuFront({ upstream: testnet.url, token: 'jwt-secret-token' });
    try {
      const { logger, text } = capturingLogger();
      const registry = await ChainRegistry.connect(
        { testnet: { urls: [front.url], headers: front.headers, maxConnections: 2 } },
        logger,
      );
      registries.push(registry);
      await Promise.all(Array.from({ length: 10 }, () => registry.provider('testnet').getBlockNumber()));
      expect(front.unauthorized).toBe(0);
      expect(front.peakConnections).toBeLessThanOrEqual(2);
      const without = await ChainRegistry.connect({ testnet: front.url }, logger);
      registries.push(without);
      expect(front.unauthorized).toBeGreaterThan(0);
      expect(text()).not.toContain('jwt-secret-token');
    } finally {
      await front.stop();
    }
  });

  it('treats a network without URL as unavailable', async () => {
    const registry = await connect({ mainnet: mainnet.url });
    expect(registry.isAvailable('testnet')).toBe(false);
    expect(() => registry.provider('testnet')).toThrow('The testnet network is not available');
    expect(await registry.health('testnet')).toMatchObject({ healthy: false, error: 'no RPC URL configured' });
  });

  it('keeps an unreachable node configured but unhealthy, and never shows its URL', async () => {
    const port = await freePort();
    const url = `http://user:secret-password@127.0.0.1:${port}/secret-path`;
    const { logger, text } = capturingLogger();
    const registry = await connect({ testnet: url, mainnet: mainnet.url }, logger);

    expect(registry.isAvailable('testnet')).toBe(true);
    expect(registry.provider('testnet')).toBeInstanceOf(JsonRpcProvider);
    const health = await registry.health('testnet');
    expect(health).toMatchObject({ network: 'testnet', healthy: false, latencyMs: null, error: 'connection refused' });

    const started = Date.now();
    const error = await appErrorOf(registry.withRetry('testnet', (p) => p.getBlockNumber(), { attempts: 3 }));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error.code).toBe('UPSTREAM_RPC_ERROR');
    expect(error.message).toBe('The testnet node did not answer (connection refused)');
    for (const secret of ['secret', '127.0.0.1', String(port), 'http']) {
      expect(error.message).not.toContain(secret);
      expect(JSON.stringify(error.details)).not.toContain(secret);
    }
    expect(text()).toContain(`127.0.0.1:${port}`);
    expect(text()).not.toContain('secret');
  });

  it('checks the chain id of a node that comes up after connect on first contact', async () => {
    const [testnetPort, mainnetPort] = [await freePort(), await freePort()];
    const registry = await connect({
      testnet: `http://127.0.0.1:${testnetPort}`,
      mainnet: `http://127.0.0.1:${mainnetPort}`,
    });
    expect((await registry.health('testnet')).healthy).toBe(false);

    const [lateWrong, lateMainnet] = await Promise.all([
      startLocalNode({ chainId: 31337, port: testnetPort, blockTime: 1, logger: silent }),
      startLocalNode({ chainId: 1991, port: mainnetPort, blockTime: 1, logger: silent }),
    ]);
    laterNodes.push(lateWrong, lateMainnet);

    const provider = registry.provider('testnet');
    await expect(appErrorOf(provider.getBlockNumber())).resolves.toMatchObject({ code: 'NETWORK_UNAVAILABLE' });
    expect(registry.isAvailable('testnet')).toBe(false);
    expect((await registry.health('mainnet')).healthy).toBe(true);
    expect(registry.isAvailable('mainnet')).toBe(true);
  });

  it('retries 5xx answers and gives up with UPSTREAM_RPC_ERROR', async () => {
    const server = await statusServer(503);
    try {
      const registry = await connect({ testnet: server.url });
      const before = server.hits();
      const error = await appErrorOf(registry.withRetry('testnet', (p) => p.getBlockNumber(), { attempts: 3 }));
      expect(server.hits() - before).toBe(3);
      expect(error).toMatchObject({ code: 'UPSTREAM_RPC_ERROR' });
      expect(error.message).toBe('The testnet node did not answer (HTTP 503 Service Unavailable)');
    } finally {
      await server.close();
    }
  });

  it('does not retry a 4xx answer and hides the URL', async () => {
    const server = await statusServer(401);
    try {
      const registry = await connect({ testnet: server.url });
      const before = server.hits();
      const error = await appErrorOf(registry.withRetry('testnet', (p) => p.getBlockNumber(), { attempts: 3 }));
      expect(server.hits() - before).toBe(1);
      expect(error.code).toBe('UPSTREAM_RPC_ERROR');
      expect(error.message).toBe('The testnet node refused the request (HTTP 401 Unauthorized)');
    } finally {
      await server.close();
    }
  });

  it('passes errors that are not about the network through without retrying', async () => {
    const registry = await connect({ testnet: testnet.url });
    let calls = 0;
    const failure = new Error('not a network problem');
    await expect(
      registry.withRetry('testnet', async () => {
        calls++;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(calls).toBe(1);
  });

  it('gives up on a hanging call after timeoutMs', async () => {
    const registry = await connect({ testnet: testnet.url });
    const error = await appErrorOf(
      registry.withRetry('testnet', () => new Promise<never>(() => undefined), { attempts: 2, timeoutMs: 100 }),
    );
    expect(error.code).toBe('UPSTREAM_RPC_ERROR');
    expect(error.message).toBe('The testnet node did not answer (timeout after 100 ms)');
  });

  it("cuts a node's long error message to 4 KiB before ethers quotes it (docs/api.md, Hostile chain data)", async () => {
    const registry = await connect({ testnet: testnet.url });
    const payload = { jsonrpc: '2.0' as const, id: 1, method: 'eth_sendRawTransaction', params: ['0x00'] };
    const long = `refused: ${'é'.repeat(100_000)}`;
    const error = registry.provider('testnet').getRpcError(payload, {
      id: 1,
      error: { code: -32000, message: long },
    }) as Error & { error?: { message?: string } };
    const quoted = error.error?.message ?? '';
    expect(Buffer.byteLength(quoted)).toBeLessThanOrEqual(4096);
    expect(quoted).toMatch(/^refused: (é)+…$/);
    expect(Buffer.byteLength(error.message)).toBeLessThan(16 * 1024);
    // A short message is passed on as the node wrote it.
    const short = registry.provider('testnet').getRpcError(payload, {
      id: 1,
      error: { code: -32000, message: 'refused: short' },
    }) as Error & { error?: { message?: string } };
    expect(short.error?.message).toBe('refused: short');
  });

  it('refuses every network after destroy()', async () => {
    const registry = await connect({ testnet: testnet.url, mainnet: mainnet.url });
    registry.destroy();
    expect(registry.isAvailable('testnet')).toBe(false);
    expect(() => registry.provider('mainnet')).toThrow('The mainnet network is not available');
  });
});
