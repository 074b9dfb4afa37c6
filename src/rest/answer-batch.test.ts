import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { endTogether } from './answer-batch';

/** A server whose handler is `handle`, and a function that asks it once. */
async function serve(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  const server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ask: (path = '/') => fetch(`http://127.0.0.1:${port}${path}`),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('answers written together', () => {
  it('are written after the turn that ended them, with their status and headers', async () => {
    const seen: Array<{ endedAtOnce: boolean; endedNextCheck: boolean }> = [];
    const server = await serve((_req, res) => {
      res.statusCode = 201;
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.setHeader('x-block-number', '7');
      endTogether(res, '{"result":"1"}');
      const endedAtOnce = res.writableEnded;
      setImmediate(() => seen.push({ endedAtOnce, endedNextCheck: res.writableEnded }));
    });
    try {
      const answer = await server.ask();
      expect(answer.status).toBe(201);
      expect(answer.headers.get('x-block-number')).toBe('7');
      expect(await answer.json()).toEqual({ result: '1' });
      expect(seen).toEqual([{ endedAtOnce: false, endedNextCheck: true }]);
    } finally {
      await server.close();
    }
  });

  it('go out in one batch for the requests of one turn, in the order they were ended', async () => {
    const order: string[] = [];
    const responses: http.ServerResponse[] = [];
    // Both requests are answered in one turn: the second one's handler ends both.
    const server = await serve((req, res) => {
      responses.push(res);
      res.on('finish', () => order.push(req.url!));
      if (responses.length < 2) return;
      for (const r of responses) endTogether(r, 'ok');
    });
    try {
      const answers = await Promise.all([server.ask('/first'), server.ask('/second')]);
      expect(await Promise.all(answers.map((a) => a.text()))).toEqual(['ok', 'ok']);
      expect(order).toHaveLength(2);
      // Ended in arrival order, finished in the same order.
      expect(order).toEqual(responses.map((r) => r.req.url));
    } finally {
      await server.close();
    }
  });

  it('skip an answer whose connection was closed meanwhile, and still write the others', async () => {
    let destroyedSkipped: boolean | undefined;
    const server = await serve((req, res) => {
      if (req.url === '/gone') {
        endTogether(res, 'never');
        res.destroy();
        setImmediate(() => (destroyedSkipped = !res.writableEnded));
        return;
      }
      endTogether(res, 'kept');
    });
    try {
      await expect(server.ask('/gone')).rejects.toThrow();
      const kept = await server.ask('/kept');
      expect(await kept.text()).toBe('kept');
      expect(destroyedSkipped).toBe(true);
    } finally {
      await server.close();
    }
  });
});
