import net from 'node:net';

/** `port` on 127.0.0.1 if it can be bound right now (0: any port the kernel gives), else null. */
export function bindable(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A port nobody listens on right now on 127.0.0.1, below Linux's ephemeral range (32768–60999 by
 * default). A port the kernel hands out for port 0 may be handed out again, to any process's next
 * outgoing connection, before the caller binds it (seen: a server's listen failing with
 * EADDRINUSE, or PostgreSQL's "could not create any TCP/IP sockets"). Others picking at random in
 * the same range can still clash, rarely: callers that must start try again on a new port.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const port = await bindable(20_000 + Math.floor(Math.random() * 12_000));
    if (port !== null) return port;
  }
  const port = await bindable(0);
  if (port === null) throw new Error('no free port on 127.0.0.1');
  return port;
}
