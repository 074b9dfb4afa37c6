import net from 'node:net';

/** Whether `port` on 127.0.0.1 can be bound right now (it is free the moment this answers). */
function bindable(port: number): Promise<number | null> {
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
 * A port nobody listens on right now, below Linux's ephemeral range (32768–60999 by default): a
 * port the kernel hands out for port 0 may be handed out again, to any process's next outgoing
 * connection, before the caller binds it (seen in CI: a service's listen failed with EADDRINUSE).
 * Other test workers pick at random in the same range, so a clash stays possible but rare;
 * spawnService tries again on one.
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
