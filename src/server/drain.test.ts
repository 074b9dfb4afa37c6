import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { httpDrain } from './drain';

/** A server whose requests to /slow wait for `release`, everything else answered at once. */
async function serve() {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  // Resolved when a request for that path has reached the server (waited for, not slept for: a
  // loaded machine may take longer than any fixed pause).
  const arrived = new Map<string, () => void>();
  const seen = (path: string) => new Promise<void>((resolve) => arrived.set(path, resolve));
  const server = http.createServer();
  const drain = httpDrain(server);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) =>
    drain.step(req, res, () => {
      arrived.get(req.url ?? '')?.();
      if (req.url === '/slow') void released.then(() => res.end('slow'));
      else if (req.url !== '/never') res.end('quick');
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, drain, release, seen, port: (server.address() as AddressInfo).port };
}

/** A raw keep-alive connection: what it received so far, and whether the server closed it. */
async function connection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString()));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    send: (path: string) => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n`),
    received: () => received,
    /** Resolved once what was received ends with `text`. */
    answered: (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!received.endsWith(text)) return;
          socket.off('data', check);
          resolve();
        };
        socket.on('data', check);
      }),
    ended,
    socket,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HTTP drain', () => {
  it('adds no listener to the server (none per connection, none per request)', async () => {
    const server = http.createServer();
    const before = server.eventNames().map((name) => [name, server.listenerCount(name)]);
    httpDrain(server);
    expect(server.eventNames().map((name) => [name, server.listenerCount(name)])).toEqual(before);
  });

  it('lets requests in flight finish, then closes their connections, and closes idle keep-alive sockets at once', async () => {
    const { server, drain, release, seen, port } = await serve();
    const idle = await connection(port);
    const quickAnswered = idle.answered('quick');
    idle.send('/quick');
    const busy = await connection(port);
    const slowArrived = seen('/slow');
    busy.send('/slow');
    await Promise.all([quickAnswered, slowArrived]);

    let drained = false;
    const stopping = drain.drain().then(() => (drained = true));
    await idle.ended; // idle: closed at once
    await sleep(150);
    expect(drained).toBe(false); // /slow is still being answered
    expect(busy.socket.destroyed).toBe(false);
    // No new connection is accepted meanwhile.
    await expect(
      new Promise((resolve, reject) => {
        const s = net.connect(port, '127.0.0.1');
        s.once('connect', () => resolve(s.destroy()));
        s.once('error', reject);
      }),
    ).rejects.toThrow(/ECONNREFUSED/);

    // A request sent on the busy connection while draining is answered, and told the connection closes.
    busy.send('/quick');
    release();
    await busy.ended;
    await stopping;
    const [first, second] = busy.received().split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 OK[^]*\r\n\r\nslow$/);
    expect(second).toMatch(/^HTTP\/1\.1 200 OK[^]*connection: close\r\n[^]*\r\n\r\nquick$/i);
    expect(drained).toBe(true);
    expect(server.listening).toBe(false);
  });

  it('cuts what is still open after the grace period, and calls cutOthers for the sockets Node no longer tracks', async () => {
    const { drain, seen, port } = await serve();
    const stuck = await connection(port);
    const arrived = seen('/never');
    stuck.send('/never');
    await arrived;
    const cutOthers = jest.fn();
    const started = Date.now();
    await drain.drain({ graceMs: 300, cutOthers });
    await stuck.ended;
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(stuck.received()).toBe('');
    expect(cutOthers).toHaveBeenCalledTimes(1);
  });
});
