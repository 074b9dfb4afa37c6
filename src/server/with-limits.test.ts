import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { credentialsFromHttpHeaders } from '../auth/credentials';
import { RequestLimit } from '../kernel/rate-limit';
import { createLogger } from '../kernel/logger';
import { errorFaces } from './error-faces';
import { Metrics } from './metrics';
import { inOrder } from './step';
import { ANSWER_BYTES_PER_POINT, answerSurcharge, withLimits } from './with-limits';
import { requestBookkeeping, withRequestId } from './with-request-id';

/** A server behind withLimits whose answer to `/bytes/<n>` is n bytes; 100 points a minute per address. */
async function limitedServer() {
  const quiet = new Writable({ write: (_c, _e, done) => done() });
  const limit = new RequestLimit(100, 60, 'requests');
  const logger = createLogger('info', quiet);
  const server = http.createServer(
    inOrder(
      [
        // The access log's finish listener charges the answer (answer-charge.ts).
        withRequestId(requestBookkeeping(new Metrics(), logger)),
        withLimits({
          limits: { public: limit, developer: new RequestLimit(0, 1, 'unused') },
          chargeableDeveloper: () => undefined,
          credentialsOf: (req) => credentialsFromHttpHeaders(req.headers),
          clientAddress: () => '192.0.2.1',
          errors: errorFaces(new Metrics(), logger),
        }),
      ],
      (req, res) => {
        const body = Buffer.alloc(Number(/\/bytes\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0), 'x');
        res.setHeader('content-length', body.length);
        res.end(body);
      },
    ),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`);
    await res.arrayBuffer();
    return res.status;
  };
  return { get, close: () => new Promise((r) => server.close(r)) };
}

describe('size-aware charging', () => {
  it('costs an answer one point per started 64 KiB beyond the first', () => {
    expect(answerSurcharge(0)).toBe(0);
    expect(answerSurcharge(ANSWER_BYTES_PER_POINT)).toBe(0);
    expect(answerSurcharge(ANSWER_BYTES_PER_POINT + 1)).toBe(1);
    expect(answerSurcharge(10 * ANSWER_BYTES_PER_POINT)).toBe(9);
    expect(answerSurcharge(5_753_063)).toBe(87);
  });

  it('charges large answers to the budget: 100 small answers fit in it, one 5 MiB answer and 20 small ones do not', async () => {
    const small = await limitedServer();
    try {
      const statuses = [];
      for (let i = 0; i < 100; i++) statuses.push(await small.get('/bytes/1000'));
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(await small.get('/bytes/1000')).toBe(429);
    } finally {
      await small.close();
    }
    const large = await limitedServer();
    try {
      // 1 point for the request, 79 more for its 5 MiB once sent: 20 points left.
      expect(await large.get(`/bytes/${5 * 1024 * 1024}`)).toBe(200);
      const statuses = [];
      for (let i = 0; i < 21; i++) statuses.push(await large.get('/bytes/1000'));
      expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
      expect(statuses[20]).toBe(429);
    } finally {
      await large.close();
    }
  });
});
