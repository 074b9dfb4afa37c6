import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createLogger } from '../logger';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres';

const logger = createLogger('silent');

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('startEmbeddedPostgres', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-pg-'));
  let running: EmbeddedPostgres | undefined;
  let blocker: Server | undefined;

  afterAll(async () => {
    await running?.stop();
    blocker?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a cluster with the devportal database, and reuses it with its data on the next start', async () => {
    // Something else on the port: the server must move to a free one.
    blocker = createServer();
    await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
    const takenPort = (blocker.address() as { port: number }).port;

    running = await startEmbeddedPostgres({ dataDir, port: takenPort, logger });
    const firstUrl = new URL(running.url);
    expect(firstUrl.protocol).toBe('postgres:');
    expect(firstUrl.pathname).toBe('/devportal');
    expect(firstUrl.port).not.toBe(String(takenPort));
    expect(await query(running.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    await query(running.url, "create table kept (note text); insert into kept values ('still here')");
    await expect(startEmbeddedPostgres({ dataDir, logger })).rejects.toThrow(
      /already running.*managed by this process/,
    );
    await running.stop();
    running = undefined;
    expect(statSync(path.join(dataDir, 'postgres-password')).mode & 0o777).toBe(0o600);

    running = await startEmbeddedPostgres({ dataDir, logger });
    expect(new URL(running.url).password).toBe(firstUrl.password);
    expect(await query(running.url, 'select note from kept')).toEqual([{ note: 'still here' }]);
    await running.stop();
    await running.stop(); // a second stop is harmless
    running = undefined;
  });
});
