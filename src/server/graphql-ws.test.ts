import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema } from 'graphql';
import WebSocket from 'ws';
import { LiveCredentials } from '../auth/live-credentials';
import type { Session } from '../auth/session';
import { memoryLimitStore } from '../kernel/limit-store';
import { createLogger } from '../kernel/logger';
import { createGraphQLPipeline } from '../schema/limits';
import { errorFaces } from './error-faces';
import { graphqlWs } from './graphql-ws';
import { Metrics } from './metrics';
import { requestContexts } from './request-contexts';

// How the WebSocket server stops (the HTTP drain, drain.ts, waits for it): dispose() closes every
// connection with 1001 and resolves once they have closed; cut() ends at once the ones that have not.

async function start() {
  const schema = buildSchema('type Query { ok: Boolean }');
  const logger = createLogger('silent');
  const server = http.createServer();
  const ws = graphqlWs({
    schema,
    pipeline: createGraphQLPipeline(schema),
    clientAddress: () => '127.0.0.1',
    contexts: requestContexts(
      () => ({}) as Session,
      () => '127.0.0.1',
      logger,
    ),
    errors: errorFaces(new Metrics(), logger),
    connections: memoryLimitStore().connectionCap('graphql', 10),
    liveCredentials: new LiveCredentials(() => undefined),
  });
  server.on('upgrade', ws.upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  return { server, ws, url };
}

/** A connected client and the close code it will see. */
async function client(url: string) {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
  return { socket, closed };
}

describe('GraphQL over WebSocket, stopping', () => {
  it('dispose closes every connection with 1001 Going away', async () => {
    const { server, ws, url } = await start();
    try {
      const a = await client(url);
      const b = await client(url);
      await ws.dispose();
      expect(await a.closed).toBe(1001);
      expect(await b.closed).toBe(1001);
    } finally {
      server.close();
    }
  });

  it('cut ends the connections at once, without a closing handshake', async () => {
    const { server, ws, url } = await start();
    try {
      const a = await client(url);
      ws.cut();
      // 1006: the connection ended without a close frame.
      expect(await a.closed).toBe(1006);
    } finally {
      server.close();
    }
  });
});
