import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { RequestContext } from '../auth/request-context';
import { directDispatcher, type DirectCall } from './direct-route';

// The dispatcher in front of express, on a real HTTP server: which requests it takes, and how it
// reads them. The operation is a stand-in that echoes what it was given.

let server: http.Server;
let base: string;
const calls: DirectCall[] = [];
const begun: string[] = [];
let leftToExpress = 0;
const unexpected: unknown[] = [];

beforeAll(async () => {
  const dispatch = directDispatcher(
    [
      {
        method: 'POST',
        path: '/api/devportal/contracts/{id}/query/{method}',
        run: async (call) => {
          calls.push(call);
          const context = call.context();
          return {
            status: 201,
            body: { params: call.params, query: call.query, body: String(call.rawBody), requestId: context.requestId },
            headers: { 'x-extra': 'yes' },
          };
        },
      },
      {
        method: 'POST',
        path: '/boom/{kind}',
        run: async (call) => {
          if (call.params.kind === 'throw') throw new Error('stand-in failure');
          return { status: 201, body: { big: 1n } };
        },
      },
      {
        // An answer decided without waiting (a hot read), and a failure thrown before any promise.
        method: 'POST',
        path: '/at-once/{kind}',
        run: (call) => {
          if (call.params.kind === 'throw') throw new Error('stand-in failure');
          return { status: 201, body: { atOnce: call.params.kind }, headers: { 'x-block-number': '9' } };
        },
      },
    ],
    {
      maxBody: 64,
      tooLarge: { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 64 bytes' },
      badPath: { status: 400, code: 'VALIDATION_FAILED', message: 'The request path is not valid percent-encoding' },
      begin: (_req, res, path) => {
        begun.push(path);
        res.setHeader('x-request-id', 'rid');
        return 'rid';
      },
      context: (requestId) => ({ requestId }) as RequestContext,
      unexpected: (error) => {
        unexpected.push(error);
        return { status: 500, code: 'INTERNAL', message: 'Internal server error' };
      },
    },
  );
  server = http.createServer((req, res) => {
    if (dispatch(req, res)) return;
    leftToExpress += 1;
    res.statusCode = 299;
    res.end('express');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  calls.length = 0;
  begun.length = 0;
  leftToExpress = 0;
  unexpected.length = 0;
});

const post = (path: string, body?: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: 'POST', body, headers }).then(async (res) => ({
    status: res.status,
    headers: res.headers,
    text: await res.text(),
  }));

describe('directDispatcher', () => {
  it('serves an exact match: decoded path parameters, query string, raw body, reply headers', async () => {
    const res = await post('/api/devportal/contracts/c-1/query/transfer%28address%2Cuint256%29?block=7', '{"a":1}');
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(res.text)));
    expect(res.headers.get('x-extra')).toBe('yes');
    expect(res.headers.get('x-request-id')).toBe('rid');
    expect(JSON.parse(res.text)).toEqual({
      params: { id: 'c-1', method: 'transfer(address,uint256)' },
      query: { block: '7' },
      body: '{"a":1}',
      requestId: 'rid',
    });
    expect(begun).toEqual(['/api/devportal/contracts/c-1/query/transfer%28address%2Cuint256%29']);
    expect(leftToExpress).toBe(0);
  });

  it('reads a body sent in chunks, and an absent body as empty', async () => {
    const chunked = await new Promise<string>((resolve, reject) => {
      const req = http.request(`${base}/api/devportal/contracts/c/query/m`, { method: 'POST' }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.write('{"args":');
      setTimeout(() => req.end('[1]}'), 20);
    });
    expect(JSON.parse(chunked).body).toBe('{"args":[1]}');
    expect(JSON.parse((await post('/api/devportal/contracts/c/query/m')).text).body).toBe('');
  });

  it('leaves every other request to express', async () => {
    for (const [path, init] of [
      ['/api/devportal/contracts/c/query/m/', {}],
      ['/API/devportal/contracts/c/query/m', {}],
      ['/api/devportal/contracts/c/invoke/m', {}],
      ['/api/devportal/contracts/c/query', {}],
      ['/api/devportal/contracts/c/d/query/m', {}],
      ['/api/devportal/contracts/c/query/m', { method: 'GET' }],
      ['/api/devportal/contracts/c/query/m', { method: 'POST', headers: { 'content-encoding': 'gzip' }, body: 'x' }],
    ] as const) {
      const res = await fetch(`${base}${path}`, { method: 'POST', ...init });
      expect({ path, init, status: res.status }).toEqual({ path, init, status: 299 });
    }
    expect(leftToExpress).toBe(7);
    expect(calls).toHaveLength(0);
    expect(begun).toHaveLength(0);
  });

  it('answers 400 for a broken %-escape and 413 for a body over the limit, without running the operation', async () => {
    const broken = await post('/api/devportal/contracts/%E0%A4%A/query/m', '{}');
    expect(broken.status).toBe(400);
    expect(JSON.parse(broken.text).error).toMatchObject({ code: 'VALIDATION_FAILED' });
    const declared = await post('/api/devportal/contracts/c/query/m', 'x'.repeat(65));
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.text).error).toEqual({
      code: 'PAYLOAD_TOO_LARGE',
      message: 'The request body is larger than 64 bytes',
    });
    // No Content-Length: the limit holds while reading.
    const streamed = await fetch(`${base}/api/devportal/contracts/c/query/m`, {
      method: 'POST',
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(10)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(calls).toHaveLength(0);
    // The connection still serves the next request.
    expect((await post('/api/devportal/contracts/c/query/m', '{}')).status).toBe(201);
  });

  it('answers 500 in the error shape when the operation fails or its answer cannot be sent as JSON', async () => {
    for (const kind of ['throw', 'bigint']) {
      const res = await post(`/boom/${kind}`, '{}');
      expect({ kind, status: res.status, body: JSON.parse(res.text) }).toEqual({
        kind,
        status: 500,
        body: { error: { code: 'INTERNAL', message: 'Internal server error' } },
      });
    }
    expect(unexpected).toHaveLength(2);
    expect((await post('/api/devportal/contracts/c/query/m', '{}')).status).toBe(201);
  });

  it('answers an operation that answers at once, and its failure thrown at once in the error shape', async () => {
    const answered = await post('/at-once/value', '{}');
    expect({
      status: answered.status,
      block: answered.headers.get('x-block-number'),
      body: JSON.parse(answered.text),
    }).toEqual({ status: 201, block: '9', body: { atOnce: 'value' } });
    const failed = await post('/at-once/throw', '{}');
    expect({ status: failed.status, body: JSON.parse(failed.text) }).toEqual({
      status: 500,
      body: { error: { code: 'INTERNAL', message: 'Internal server error' } },
    });
  });

  it('survives a client that goes away in the middle of its body', async () => {
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write('POST /api/devportal/contracts/c/query/m HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\n{"ar');
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 20);
      });
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toHaveLength(0);
    expect((await post('/api/devportal/contracts/c/query/m', '{}')).status).toBe(201);
  });
});
