import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { ChainRegistry } from '../../../chain/chain-registry';
import { startLocalNode, type LocalNode } from '../../../chain/local-node';
import { createLogger } from '../../../kernel/logger';
import { startBesuChain, type BesuChain } from '../../../../tests/kit/besu-node';
import { capturingLogger } from '../../../../tests/kit/logs';
import type { BlockSummary } from '../views/blocks.types';
import { ChainReader } from './chain-reader';
import { ChainWatcher, type ChainWatcherOptions } from './chain-watcher';

const silent = createLogger('silent');
/** No interval mining: blocks come only when a test mines one (evm_mine). */
const NO_BLOCK_TIME = 3_600;
/** Long enough that a block published quickly can only have come through the socket. */
const NO_SAFETY_POLL: ChainWatcherOptions = { socketPollMs: 60_000 };

async function mine(url: string): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }),
  });
  expect(res.status).toBe(200);
  await res.text();
}

/** The URL with a user name and password in it. */
const userinfo = (url: string) => url.replace('://', '://ops:url-secret@');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitUntil(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A watcher of testnet publishing into `published`, with when each block arrived. */
function watch(registry: ChainRegistry, opts: ChainWatcherOptions, logger = silent) {
  const published: Array<{ block: BlockSummary; at: number }> = [];
  const watcher = new ChainWatcher(
    'testnet',
    new ChainReader(registry),
    (block) => published.push({ block, at: performance.now() }),
    logger,
    opts,
  );
  watcher.start();
  const numbers = () => published.map((p) => p.block.number);
  const arrival = (n: number) => published.find((p) => p.block.number === n)?.at;
  return { watcher, published, numbers, arrival };
}

/** Mines one block and returns how long until the watcher published it (ms). */
async function mineAndMeasure(url: string, w: ReturnType<typeof watch>, timeoutMs = 5_000): Promise<number> {
  const before = w.watcher.latestKnown()?.summary.number ?? -1;
  const started = performance.now();
  await mine(url);
  await waitUntil(`block ${before + 1}`, () => w.arrival(before + 1) !== undefined, timeoutMs);
  return w.arrival(before + 1)! - started;
}

/** Numbers strictly consecutive: no gap, no repeat. */
function expectConsecutive(numbers: number[]): void {
  expect(numbers.length).toBeGreaterThan(0);
  expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => numbers[0]! + i));
}

describe('ChainWatcher over the node WebSocket', () => {
  const stops: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });

  it('publishes each block a node announces within 100 ms of its mining, where polling alone would wait', async () => {
    const node = await startLocalNode({ chainId: 17991, blockTime: NO_BLOCK_TIME, logger: silent });
    stops.push(() => node.stop());
    const registry = await ChainRegistry.connect(
      { testnet: { urls: [node.url], wsUrls: [node.url.replace(/^http/, 'ws')] } },
      silent,
    );
    stops.push(() => registry.destroy());
    const w = watch(registry, NO_SAFETY_POLL);
    stops.push(() => w.watcher.stop());
    await waitUntil('the socket', () => w.watcher.followsSocket(), 10_000);
    await waitUntil('the first head', () => w.watcher.latestKnown() !== null, 5_000);

    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) latencies.push(await mineAndMeasure(node.url, w));
    latencies.sort((a, b) => a - b);
    // Every block of the run, in order; measured figures on the 2-core machine: see docs/api.md "Operations".
    expectConsecutive(w.numbers());
    expect(w.numbers()).toHaveLength(20);
    expect(latencies[Math.floor(latencies.length * 0.9)]!).toBeLessThan(100);
    expect(latencies[0]!).toBeLessThan(60);
  }, 60_000);

  it('without a WS URL it polls: the same chain and watcher see no socket, blocks still come in order', async () => {
    const node = await startLocalNode({ chainId: 17991, blockTime: NO_BLOCK_TIME, logger: silent });
    stops.push(() => node.stop());
    const registry = await ChainRegistry.connect({ testnet: node.url }, silent);
    stops.push(() => registry.destroy());
    expect(registry.followHeads('testnet', { onHead: () => undefined })).toBeNull();
    const w = watch(registry, { pollMs: 200 });
    stops.push(() => w.watcher.stop());
    stops.push(w.watcher.retain());
    await waitUntil('the first head', () => w.watcher.latestKnown() !== null, 5_000);
    for (let i = 0; i < 3; i++) await mineAndMeasure(node.url, w);
    expect(w.watcher.followsSocket()).toBe(false);
    expectConsecutive(w.numbers());
  }, 60_000);

  describe('behind the Besu front (JWT)', () => {
    let chain: BesuChain;
    const token = 'ws-watch-secret-token-0123456789';
    beforeAll(async () => {
      chain = await startBesuChain(17991, { token, blockTime: NO_BLOCK_TIME });
    });
    afterAll(() => chain.stop());

    it('refuses a WebSocket upgrade without its JWT (401) and relays one with it', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(chain.front.wsUrl);
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('open', () => reject(new Error('upgrade accepted without a token')));
        ws.on('error', () => undefined);
      });
      expect(status).toBe(401);
      const wrong = await new Promise<number>((resolve) => {
        const ws = new WebSocket(chain.front.wsUrl, { headers: { Authorization: 'Bearer not-it' } });
        ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.on('error', () => undefined);
      });
      expect(wrong).toBe(401);
      expect(chain.front.wsUnauthorized).toBe(2);

      // The service's registry sends the RPC headers with the upgrade; one without them is refused and polls.
      const logs = capturingLogger();
      const bare = await ChainRegistry.connect(
        // Credentials in a URL are never logged either.
        { testnet: { urls: [chain.front.url], wsUrls: [userinfo(chain.front.wsUrl)], headers: {} } },
        logs.logger,
      );
      const unauthorized = chain.front.wsUnauthorized;
      const refused = bare.followHeads('testnet', { onHead: () => undefined })!;
      await waitUntil('a refused upgrade', () => chain.front.wsUnauthorized > unauthorized, 5_000);
      expect(refused.isLive()).toBe(false);
      refused.close();
      bare.destroy();
      expect(logs.text()).toContain('HTTP 401');
      expect(logs.text()).not.toContain('url-secret');

      const authed = await ChainRegistry.connect(
        { testnet: { urls: [chain.front.url], wsUrls: [chain.front.wsUrl], headers: chain.front.headers } },
        logs.logger,
      );
      stops.push(() => authed.destroy());
      const heads: number[] = [];
      const sub = authed.followHeads('testnet', { onHead: (n) => heads.push(n) })!;
      stops.push(() => sub.close());
      await waitUntil('the socket', () => sub.isLive(), 10_000);
      await mine(chain.anvilUrl);
      await waitUntil('a head', () => heads.length > 0, 5_000);
      expect(logs.text()).not.toContain(token);
    }, 60_000);

    it('falls back to polling while the socket is down and follows the socket again once it is back', async () => {
      const registry = await ChainRegistry.connect(
        { testnet: { urls: [chain.front.url], wsUrls: [chain.front.wsUrl], headers: chain.front.headers } },
        silent,
      );
      stops.push(() => registry.destroy());
      const w = watch(registry, { ...NO_SAFETY_POLL, pollMs: 200 });
      stops.push(() => w.watcher.stop());
      stops.push(w.watcher.retain());
      await waitUntil('the socket', () => w.watcher.followsSocket(), 10_000);
      await waitUntil('the first head', () => w.watcher.latestKnown() !== null, 5_000);
      expect(await mineAndMeasure(chain.anvilUrl, w)).toBeLessThan(250);

      // The node drops its sockets and refuses new ones: the watcher polls (200 ms) meanwhile.
      chain.front.dropSockets(true);
      await waitUntil('the socket lost', () => !w.watcher.followsSocket(), 5_000);
      const polled: number[] = [];
      for (let i = 0; i < 3; i++) polled.push(await mineAndMeasure(chain.anvilUrl, w, 3_000));
      expect(Math.max(...polled)).toBeLessThan(1_500);
      expect(w.watcher.followsSocket()).toBe(false);

      // Back: it reconnects (backoff) and the announcements drive it again, safety poll at 60 s.
      const sessions = chain.front.wsSessions;
      chain.front.dropSockets(false);
      await waitUntil('the socket back', () => w.watcher.followsSocket(), 15_000);
      expect(chain.front.wsSessions).toBeGreaterThan(sessions);
      expect(await mineAndMeasure(chain.anvilUrl, w)).toBeLessThan(250);
      expectConsecutive(w.numbers());
    }, 90_000);
  });

  it('publishes no gap and no repeat across a node restart (same port, same chain)', async () => {
    const stateDir = mkdtempSync(path.join(tmpdir(), 'ws-watch-'));
    stops.push(() => rmSync(stateDir, { recursive: true, force: true }));
    let node: LocalNode = await startLocalNode({
      chainId: 17991,
      blockTime: NO_BLOCK_TIME,
      logger: silent,
      stateDir,
    });
    const port = Number(new URL(node.url).port);
    stops.push(() => node.stop());
    const registry = await ChainRegistry.connect(
      { testnet: { urls: [node.url], wsUrls: [node.url.replace(/^http/, 'ws')] } },
      silent,
    );
    stops.push(() => registry.destroy());
    const w = watch(registry, { pollMs: 200 });
    stops.push(() => w.watcher.stop());
    stops.push(w.watcher.retain());
    await waitUntil('the socket', () => w.watcher.followsSocket(), 10_000);
    await waitUntil('the first head', () => w.watcher.latestKnown() !== null, 5_000);
    for (let i = 0; i < 3; i++) await mineAndMeasure(node.url, w);
    const beforeRestart = w.watcher.latestKnown()!.summary.number;

    await node.stop();
    await waitUntil('the socket lost', () => !w.watcher.followsSocket(), 5_000);
    node = await startLocalNode({ chainId: 17991, blockTime: NO_BLOCK_TIME, logger: silent, stateDir, port });
    // Mined at once, before the socket is back: the poll and the backfill publish them.
    for (let i = 0; i < 3; i++) await mine(node.url);
    await waitUntil('the socket back', () => w.watcher.followsSocket(), 15_000);
    for (let i = 0; i < 2; i++) await mineAndMeasure(node.url, w);

    const numbers = w.numbers();
    expectConsecutive(numbers);
    expect(numbers[numbers.length - 1]).toBe(beforeRestart + 5);
  }, 90_000);
});
