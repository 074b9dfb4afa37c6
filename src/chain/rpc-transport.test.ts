import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RpcHttpError, RpcTransport } from './rpc-transport';

/** A real HTTP server answering with `answer(request body, request)`; records what it was sent. */
async function server(answer: (body: string, req: IncomingMessage) => { status: number; body: string }): Promise<{
  url: string;
  seen: Array<{ body: string; headers: IncomingMessage['headers']; path?: string }>;
  close: () => Promise<void>;
}> {
  const seen: Array<{ body: string; headers: IncomingMessage['headers']; path?: string }> = [];
  const s: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ body, headers: req.headers, path: req.url });
      const a = answer(body, req);
      res.statusCode = a.status;
      res.end(a.body);
    });
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => s.close(() => resolve())),
  };
}

describe('RpcTransport', () => {
  it('posts JSON-RPC to the URL path and returns the answers as a list, results and errors alike', async () => {
    const node = await server((body) => {
      const req = JSON.parse(body) as { id: number; method: string };
      return req.method === 'eth_chainId'
        ? { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: req.id, result: '0x4647' }) }
        : {
            status: 200,
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: req.id,
              error: { code: 3, message: 'execution reverted', data: '0x' },
            }),
          };
    });
    const transport = new RpcTransport(`${node.url}/rpc/v1?x=1`, 5000);
    try {
      expect(await transport.send({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] })).toEqual([
        { jsonrpc: '2.0', id: 7, result: '0x4647' },
      ]);
      const [answer] = await transport.send({ jsonrpc: '2.0', id: 8, method: 'eth_call', params: [] });
      expect(answer).toMatchObject({ id: 8, error: { code: 3, message: 'execution reverted' } });
      expect(node.seen[0]).toMatchObject({ path: '/rpc/v1?x=1', headers: { 'content-type': 'application/json' } });
      expect(node.seen[0]!.headers.authorization).toBeUndefined();
    } finally {
      transport.close();
      await node.close();
    }
  });

  it('sends credentials of the URL as basic authentication', async () => {
    const node = await server((body) => ({
      status: 200,
      body: JSON.stringify({ id: JSON.parse(body).id, result: '0x1' }),
    }));
    const transport = new RpcTransport(node.url.replace('http://', 'http://user:p%40ss@'), 5000);
    try {
      await transport.send({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
      expect(node.seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from('user:p@ss').toString('base64')}`);
    } finally {
      transport.close();
      await node.close();
    }
  });

  it('reads a non-2xx answer or one that is not JSON as a server error with the status, never the URL', async () => {
    const node = await server((body) =>
      body.includes('eth_a') ? { status: 503, body: 'down for maintenance' } : { status: 200, body: '<html>' },
    );
    const transport = new RpcTransport(`${node.url}/secret-key`, 5000);
    try {
      const down = await transport
        .send({ jsonrpc: '2.0', id: 1, method: 'eth_a', params: [] })
        .catch((e: unknown) => e);
      expect(down).toBeInstanceOf(RpcHttpError);
      expect(down).toMatchObject({ code: 'SERVER_ERROR', info: { responseStatus: '503 Service Unavailable' } });
      const html = await transport
        .send({ jsonrpc: '2.0', id: 2, method: 'eth_b', params: [] })
        .catch((e: unknown) => e);
      expect(html).toMatchObject({ code: 'SERVER_ERROR', info: { responseStatus: '200 OK' } });
      expect(JSON.stringify([down, html, String(down), String(html)])).not.toContain('secret-key');
    } finally {
      transport.close();
      await node.close();
    }
  });

  it('fails with the socket error code when nothing listens', async () => {
    const node = await server(() => ({ status: 200, body: '{}' }));
    await node.close();
    const transport = new RpcTransport(node.url, 5000);
    try {
      await expect(transport.send({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
    } finally {
      transport.close();
    }
  });
});
