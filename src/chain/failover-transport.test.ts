import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonRpcPayload } from 'ethers';
import { freePort } from '../kernel/ports';
import { FailoverTransport, mayFailOver } from './failover-transport';
import { RpcHttpError } from './rpc-transport';

const read: JsonRpcPayload = { jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [] };
const send: JsonRpcPayload = { jsonrpc: '2.0', id: 1, method: 'eth_sendRawTransaction', params: ['0x00'] };
const socket = (code: string) => Object.assign(new Error(code), { code });

describe('mayFailOver', () => {
  it('moves a read to the next node after any failure to answer', () => {
    for (const err of [socket('ECONNREFUSED'), socket('ECONNRESET'), socket('UND_ERR_HEADERS_TIMEOUT')]) {
      expect(mayFailOver(err, read)).toBe(true);
    }
    expect(mayFailOver(new RpcHttpError('bad response', 503), read)).toBe(true);
    expect(mayFailOver(new RpcHttpError('bad response', 429), read)).toBe(true);
    expect(mayFailOver(new RpcHttpError('bad response', 401), read)).toBe(false);
  });

  it('moves a transaction only when it surely did not reach the node (never after a reset or a timeout)', () => {
    expect(mayFailOver(socket('ECONNREFUSED'), send)).toBe(true);
    expect(mayFailOver(socket('UND_ERR_CONNECT_TIMEOUT'), send)).toBe(true);
    expect(mayFailOver(new RpcHttpError('bad response', 503), send)).toBe(true);
    expect(mayFailOver(socket('ECONNRESET'), send)).toBe(false);
    expect(mayFailOver(socket('UND_ERR_HEADERS_TIMEOUT'), send)).toBe(false);
    expect(mayFailOver(new RpcHttpError('bad response', 500), send)).toBe(false);
  });
});

describe('FailoverTransport observer (the /metrics per-node series)', () => {
  let node: Server;
  let fail = false;

  beforeAll(async () => {
    // A node of chain id 7 answering every request, or 503 while `fail` is set.
    node = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (fail) return res.writeHead(503).end('down');
        const request = JSON.parse(body) as JsonRpcPayload;
        const result = request.method === 'eth_chainId' ? '0x7' : '0x5';
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result }));
      });
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => node.close(() => resolve())));

  it('counts a failure of every exchange, the chain-id check of a node down from the start included', async () => {
    const downHost = `127.0.0.1:${await freePort()}`;
    const upHost = `127.0.0.1:${(node.address() as AddressInfo).port}`;
    const transport = new FailoverTransport([`http://${downHost}`, `http://${upHost}`], 5_000, {}, 7n, () => {
      throw new Error('no node is on another chain');
    });
    const seen: string[] = [];
    transport.observer = (host, seconds, failed) => {
      expect(seconds).toBeGreaterThanOrEqual(0);
      seen.push(`${host} ${failed ? 'failed' : 'answered'}`);
    };
    try {
      expect(await transport.send(read)).toEqual([{ jsonrpc: '2.0', id: 1, result: '0x5' }]);
      // The down node's refused chain-id check, then the other node's check and the request itself.
      expect(seen).toEqual([`${downHost} failed`, `${upHost} answered`, `${upHost} answered`]);

      // A verified node that answers 503: a failed exchange too.
      seen.length = 0;
      fail = true;
      await expect(transport.send(read)).rejects.toThrow();
      expect(seen.filter((s) => s.startsWith(upHost))).toEqual([`${upHost} failed`]);
    } finally {
      fail = false;
      transport.close();
    }
  });
});
