import { EventEmitter, on } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GraphQLInt, GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import WebSocket from 'ws';
import { LiveCredentials } from '../auth/live-credentials';
import type { Session } from '../auth/session';
import { memoryLimitStore } from '../kernel/limit-store';
import { createLogger } from '../kernel/logger';
import { createGraphQLPipeline } from '../schema/limits';
import { errorFaces } from './error-faces';
import { graphqlWs } from './graphql-ws';
import { Metrics } from './metrics';
import { nextFrame } from './next-frames';
import { requestContexts } from './request-contexts';

// A shared subscription's `next` messages are written straight to each socket around one payload
// JSON (next-frames.ts); the client must not be able to tell: the same bytes, in the same order,
// with the same `error` and `complete`, as graphql-ws's own path sends.

/** A schema whose `blocks` subscription feeds every subscriber the same event objects, until `end`. */
function blocksSchema() {
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  const Block = new GraphQLObjectType({
    name: 'Block',
    fields: {
      number: { type: GraphQLInt },
      label: {
        type: GraphQLString,
        args: { prefix: { type: GraphQLString } },
        resolve: (b: { number: number }, a: { prefix?: string }) => `${a.prefix ?? ''}${b.number}`,
      },
      /** Fails on odd blocks: a `next` message with errors. */
      even: {
        type: GraphQLInt,
        resolve: (b: { number: number }) => {
          if (b.number % 2 === 1) throw new Error(`block ${b.number} is odd`);
          return b.number;
        },
      },
      padding: { type: GraphQLString, resolve: (b: { number: number; padding?: string }) => b.padding ?? '' },
    },
  });
  const subscribed = { count: 0 };
  const feed = (): AsyncIterableIterator<unknown> => {
    subscribed.count++;
    const ac = new AbortController();
    const events = on(bus, 'block', { signal: ac.signal });
    const ended = new Promise<IteratorResult<unknown>>((resolve) =>
      bus.once('end', () => resolve({ value: undefined, done: true })),
    );
    const source: AsyncIterableIterator<unknown> = {
      next: async () => {
        // Ended by return() while waiting: done, as the explorer's feeds end.
        const r = await Promise.race([events.next(), ended]).catch(() => ({ value: undefined, done: true as const }));
        if (r.done) {
          ac.abort();
          return { value: undefined, done: true };
        }
        return { value: (r.value as unknown[])[0], done: false };
      },
      return: async () => {
        ac.abort();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => source,
    };
    return source;
  };
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLInt } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        blocks: { type: Block, args: { prefix: { type: GraphQLString } }, subscribe: feed, resolve: (b: unknown) => b },
      },
    }),
  });
  return { bus, schema, subscribed };
}

/** graphqlWs on its own port; `sharedFeeds` empty serves `blocks` through graphql-ws's own path. */
async function start(sharedFeeds: ReadonlySet<string>) {
  const { bus, schema, subscribed } = blocksSchema();
  const logger = createLogger('silent');
  const live = new LiveCredentials((c) => (c.apiKey ? { apiKeyHash: c.apiKey } : undefined));
  const server = http.createServer();
  const ws = graphqlWs({
    schema,
    pipeline: createGraphQLPipeline(schema),
    clientAddress: () => '127.0.0.1',
    contexts: requestContexts(
      (credentials) => ({ credentials }) as Session,
      () => '127.0.0.1',
      logger,
    ),
    errors: errorFaces(new Metrics(), logger),
    connections: memoryLimitStore().connectionCap('graphql', 100),
    liveCredentials: live,
    sharedFeeds,
  });
  server.on('upgrade', ws.upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return {
    bus,
    subscribed,
    live,
    url,
    stop: async () => {
      ws.cut();
      await ws.dispose();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A raw graphql-transport-ws client: every message it receives after the ack, as text (or as `keep` makes it). */
async function connect(url: string, apiKey?: string, keep: (text: string) => string = (text) => text) {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const messages: string[] = [];
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: apiKey ? { 'x-api-key': apiKey } : {} })),
    );
    socket.on('message', (data) => {
      const text = String(data);
      const { type } = JSON.parse(text) as { type: string };
      if (type === 'connection_ack') resolve();
      // Pongs answer the test's own pings (handled()).
      else if (type !== 'pong') messages.push(keep(text));
    });
  });
  return {
    socket,
    messages,
    subscribe: (id: string, query: string, variables?: Record<string, unknown>) =>
      socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } })),
    complete: (id: string) => socket.send(JSON.stringify({ id, type: 'complete' })),
  };
}

const QUERY = 'subscription($p: String) { blocks(prefix: $p) { number label(prefix: $p) even } }';
const PADDED = 'subscription { blocks { number padding } }';

async function until(what: string, done: () => boolean, ms = 10_000): Promise<void> {
  const by = Date.now() + ms;
  while (!done()) {
    if (Date.now() > by) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Every subscription is in place once each of its feeds listens. */
/** Every subscription is in place once its feed was asked for (and the turn that follows it ran). */
const subscribed = async (s: { subscribed: { count: number } }, n: number) => {
  await until(`${n} subscriptions`, () => s.subscribed.count >= n);
  await new Promise((r) => setTimeout(r, 20));
};

/** A ping answered: every message the client sent before it was handled. */
const handled = (socket: WebSocket) =>
  new Promise<void>((resolve) => {
    const onMessage = (data: unknown) => {
      if ((JSON.parse(String(data)) as { type: string }).type !== 'pong') return;
      socket.off('message', onMessage);
      resolve();
    };
    socket.on('message', onMessage);
    socket.send(JSON.stringify({ type: 'ping' }));
  });

/**
 * Each subscription's messages in order (graphql-ws orders a connection's subscriptions among
 * themselves as its promises settle); a request id differs on each run, the rest must not.
 */
const bySubscription = (messages: string[]) => {
  const by: Record<string, string[]> = {};
  for (const m of messages)
    (by[(JSON.parse(m) as { id: string }).id] ??= []).push(m.replace(/"requestId":"[^"]*"/g, '"requestId":"…"'));
  return by;
};
const kinds = (by: Record<string, string[]>) =>
  Object.fromEntries(
    Object.entries(by).map(([id, ms]) => [id, ms.map((m) => (JSON.parse(m) as { type: string }).type)]),
  );

/** The block number of a padded block's `next` message (the 1 MiB message itself is not kept). */
const blockNumber = (text: string) =>
  String((JSON.parse(text) as { payload: { data: { blocks: { number: number } } } }).payload.data.blocks.number);

describe('nextFrame', () => {
  it('is graphql-ws`s own next message around a payload JSON, for any id', () => {
    const payload = { data: { blocks: { number: 1, label: 'a"\u2028\u00fc' } } };
    for (const id of ['1', 'a-b', 'ü"\\\n<x>', '']) {
      expect(nextFrame(id, JSON.stringify(payload))).toBe(JSON.stringify({ id, type: 'next', payload }));
    }
  });
});

describe('shared subscriptions written straight to the socket', () => {
  it('send the same bytes as graphql-ws`s own path: next (with errors), error on revocation, complete, nothing after the client`s complete', async () => {
    /** One run of the same script against a server; the messages each connection received. */
    const script = async (sharedFeeds: ReadonlySet<string>) => {
      const s = await start(sharedFeeds);
      try {
        const a = await connect(s.url, 'key-a');
        const b = await connect(s.url, 'key-b');
        const c = await connect(s.url);
        a.subscribe('1', QUERY, { p: 'x' });
        a.subscribe('a-2', QUERY, { p: 'y' });
        b.subscribe('ü"\\id', QUERY, { p: 'x' });
        b.subscribe('b', QUERY, { p: 'x' });
        c.subscribe('1', QUERY);
        await subscribed(s, 5);
        const count = () => a.messages.length + b.messages.length + c.messages.length;
        const emit = async (number: number, expected: number) => {
          s.bus.emit('block', { number });
          await until(`block ${number}`, () => count() >= expected);
        };
        await emit(1, 5);
        await emit(2, 10);
        // key-b's subscriptions end with an error, a's and c's go on.
        s.live.keyRevoked('key-b');
        await until('the revocation', () => b.messages.length >= 6);
        await emit(3, 15);
        // The client completes one of its own: nothing more of it, no `complete` sent back.
        a.complete('a-2');
        await handled(a.socket);
        await emit(4, 17);
        s.bus.emit('end');
        await until('the completes', () => count() >= 19);
        await new Promise((r) => setTimeout(r, 50));
        return [a.messages, b.messages, c.messages].map(bySubscription);
      } finally {
        await s.stop();
      }
    };
    const normal = await script(new Set());
    const direct = await script(new Set(['blocks']));
    expect(direct).toEqual(normal);
    // What was compared: every kind of message, each subscription's in order.
    expect(normal.map(kinds)).toEqual([
      { '1': ['next', 'next', 'next', 'next', 'complete'], 'a-2': ['next', 'next', 'next'] },
      { 'ü"\\id': ['next', 'next', 'error'], b: ['next', 'next', 'error'] },
      { '1': ['next', 'next', 'next', 'next', 'complete'] },
    ]);
    expect(JSON.parse(normal[0]!['1']![0]!)).toMatchObject({
      payload: { data: { blocks: { number: 1, label: 'x1', even: null } }, errors: [{ path: ['blocks', 'even'] }] },
    });
    expect(JSON.parse(normal[0]!['1']![1]!)).toEqual({
      id: '1',
      type: 'next',
      payload: { data: { blocks: { number: 2, label: 'x2', even: 2 } } },
    });
    expect(JSON.parse(normal[1]!['ü"\\id']![2]!)).toEqual({
      id: 'ü"\\id',
      type: 'error',
      payload: [{ message: 'The API key was revoked', extensions: { code: 'INVALID_API_KEY' } }],
    });
  });

  it('a subscriber that does not read, or has gone, holds back no other', async () => {
    const s = await start(new Set(['blocks']));
    try {
      const slow = await connect(s.url, undefined, blockNumber);
      const gone = await connect(s.url, undefined, blockNumber);
      const others = await Promise.all([1, 2, 3].map(() => connect(s.url, undefined, blockNumber)));
      for (const [i, client] of [slow, gone, ...others].entries()) client.subscribe(`s${i}`, PADDED);
      await subscribed(s, 5);
      // The slow one stops reading: its blocks (1 MiB each) pile up in the socket buffers until its writes wait.
      (slow.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
      const padding = 'p'.repeat(1 << 20);
      const BLOCKS = 20;
      for (let n = 1; n <= BLOCKS; n++) {
        s.bus.emit('block', { number: n, padding });
        if (n === 2) gone.socket.terminate();
        await until(`block ${n} to the others`, () => others.every((o) => o.messages.length >= n));
      }
      const all = Array.from({ length: BLOCKS }, (_, k) => String(k + 1));
      for (const o of others) expect(o.messages).toEqual(all);
      // Stalled, not lost: once it reads again, the slow one gets every block, in order.
      expect(slow.messages.length).toBeLessThan(BLOCKS);
      (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
      await until('the slow one catching up', () => slow.messages.length >= BLOCKS);
      expect(slow.messages).toEqual(all);
    } finally {
      await s.stop();
    }
  });
  it('ends a subscriber that falls more than 256 results behind with RATE_LIMITED, after the frames it was sent', async () => {
    const s = await start(new Set(['blocks']));
    try {
      const keepKind = (text: string) => {
        const m = JSON.parse(text) as { type: string; payload: unknown };
        return m.type === 'next' ? blockNumber(text) : `${m.type} ${JSON.stringify(m.payload)}`;
      };
      const slow = await connect(s.url, undefined, keepKind);
      const other = await connect(s.url, undefined, keepKind);
      slow.subscribe('slow', PADDED);
      other.subscribe('other', PADDED);
      await subscribed(s, 2);
      (slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();
      const padding = 'p'.repeat(64 * 1024);
      const BLOCKS = 400;
      for (let n = 1; n <= BLOCKS; n++) {
        s.bus.emit('block', { number: n, padding });
        await until(`block ${n} to the other`, () => other.messages.length >= n);
      }
      expect(other.messages).toEqual(Array.from({ length: BLOCKS }, (_, k) => String(k + 1)));
      (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
      await until('the error', () => slow.messages.some((m) => m.startsWith('error')));
      const error = slow.messages.pop()!;
      expect(JSON.parse(error.slice('error '.length))).toEqual([
        {
          message: 'The subscriber fell more than 256 blocks behind and was dropped; subscribe again',
          extensions: { code: 'RATE_LIMITED' },
        },
      ]);
      // What it had been sent before, in order and without a gap.
      expect(slow.messages).toEqual(Array.from({ length: slow.messages.length }, (_, k) => String(k + 1)));
      expect(slow.messages.length).toBeLessThan(BLOCKS - 256);
    } finally {
      await s.stop();
    }
  });
});
