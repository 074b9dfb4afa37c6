import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { capturingLogger } from '../../tests/kit/logs';
import { HeadSubscription } from './head-subscription';

/** A hostile node's WebSocket: the test decides every frame it sends. */
async function fakeNode(onSubscribe: (ws: WebSocket, id: unknown) => void) {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const upgrades: IncomingMessage[] = [];
  const closes: number[] = [];
  const sockets: WebSocket[] = [];
  server.on('connection', (ws, req) => {
    upgrades.push(req);
    sockets.push(ws);
    ws.on('close', (code) => closes.push(code));
    ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { id: unknown; method: string };
      if (m.method === 'eth_subscribe') onSubscribe(ws, m.id);
    });
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    upgrades,
    closes,
    sockets,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
async function waitUntil(what: string, check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

const note = (subscription: string, result: unknown) =>
  JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription, result } });

describe('HeadSubscription', () => {
  it('reads only well-formed heads of its own subscription, sends the RPC headers, and closes on an oversized frame', async () => {
    const node = await fakeNode((ws, id) => {
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, result: '0xabc' }));
      ws.send(note('0xabc', { number: '0x10' }));
      ws.send(note('0xother', { number: '0x11' })); // someone else's subscription
      ws.send(note('0xabc', { number: 17 })); // not a hex quantity
      ws.send(note('0xabc', { number: `0x${'f'.repeat(20)}` })); // beyond any safe block number
      ws.send(note('0xabc', null));
      ws.send('not json {');
      ws.send(Buffer.from(note('0xabc', { number: '0x12' })), { binary: true });
      ws.send(note('0xabc', { number: '0x13' }));
    });
    const logs = capturingLogger();
    const heads: number[] = [];
    const live: boolean[] = [];
    const sub = new HeadSubscription(
      { urls: [node.url], headers: { authorization: 'Bearer node-jwt-secret' }, logger: logs.logger, backoffMs: 50 },
      { onHead: (n) => heads.push(n), onLive: (l) => live.push(l) },
    );
    try {
      await waitUntil('two heads', () => heads.length >= 2);
      await sleep(50);
      expect(heads).toEqual([16, 19]);
      expect(sub.isLive()).toBe(true);
      expect(node.upgrades[0]!.headers.authorization).toBe('Bearer node-jwt-secret');

      // A frame over 64 KiB: the client closes the socket (1009, message too big) unparsed, then reconnects.
      node.sockets[0]!.send(note('0xabc', { number: '0x14', pad: 'x'.repeat(70 * 1024) }));
      await waitUntil('the close', () => node.closes.length === 1);
      expect(node.closes[0]).toBe(1009);
      await waitUntil('the second socket', () => node.upgrades.length === 2 && sub.isLive());
      expect(heads).not.toContain(20);
      expect(live).toEqual([true, false, true]);
      expect(logs.text()).not.toContain('node-jwt-secret');
    } finally {
      sub.close();
      await node.close();
    }
  });

  it('a node that refuses eth_subscribe is not followed (logged once) and is asked again with backoff', async () => {
    const node = await fakeNode((ws, id) =>
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } })),
    );
    const logs = capturingLogger();
    const sub = new HeadSubscription(
      { urls: [node.url], headers: {}, logger: logs.logger, backoffMs: 50, maxBackoffMs: 200 },
      { onHead: () => undefined },
    );
    try {
      await waitUntil('three attempts', () => node.upgrades.length >= 3);
      expect(sub.isLive()).toBe(false);
      const refusals = logs.lines.filter((l) => String(l.msg).includes('refused eth_subscribe'));
      expect(refusals).toHaveLength(1);
    } finally {
      sub.close();
      const attempts = node.upgrades.length;
      await sleep(300);
      // Closed: no more attempts.
      expect(node.upgrades.length).toBe(attempts);
      await node.close();
    }
  });
});
