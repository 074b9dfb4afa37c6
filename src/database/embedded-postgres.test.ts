import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../kernel/ports';
import { capturingLogger } from '../../tests/kit/logs';
import { createLogger } from '../logger';
import { closedAncestor, clusterLocation, startEmbeddedPostgres, type EmbeddedPostgres } from './embedded-postgres';

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

  it('starts on another port when its port is taken after it was found free', async () => {
    const lostDir = mkdtempSync(path.join(tmpdir(), 'embedded-pg-lost-'));
    const { logger: capturing, lines } = capturingLogger('info');
    const wantedPort = await freePort();
    const starting = startEmbeddedPostgres({ dataDir: lostDir, port: wantedPort, logger: capturing });
    const taker = createServer();
    let started: EmbeddedPostgres | undefined;
    try {
      // The port was found free; while the new cluster is created (seconds), another process takes it.
      const until = Date.now() + 20_000;
      while (!lines.some((l) => l.msg === 'Creating PostgreSQL cluster')) {
        if (Date.now() > until) throw new Error('the cluster was never created');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await new Promise<void>((resolve) => taker.listen(wantedPort, '127.0.0.1', resolve));
      started = await starting;
      expect(new URL(started.url).port).not.toBe(String(wantedPort));
      expect(lines.some((l) => l.msg === 'PostgreSQL could not listen on its port; trying another one')).toBe(true);
      expect(await query(started.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    } finally {
      await (started ?? (await starting.catch(() => undefined)))?.stop();
      taker.close();
      rmSync(lostDir, { recursive: true, force: true });
    }
  }, 60_000);
});

// As root, postgres runs as the `postgres` user; a project under /root (mode 0700) is out of its reach.
const asRoot = process.getuid?.() === 0 ? describe : describe.skip;

asRoot('a data directory the postgres user cannot reach (running as root)', () => {
  const closed = mkdtempSync(path.join(tmpdir(), 'closed-home-'));
  const relocationRoot = path.join(mkdtempSync(path.join(tmpdir(), 'relocated-')), 'clusters');
  const dataDir = path.join(closed, 'project', 'data');
  let running: EmbeddedPostgres | undefined;

  beforeAll(() => {
    chmodSync(closed, 0o700);
    chmodSync(path.dirname(relocationRoot), 0o711);
  });
  afterAll(async () => {
    await running?.stop();
    rmSync(closed, { recursive: true, force: true });
    rmSync(path.dirname(relocationRoot), { recursive: true, force: true });
  });

  it('finds the closed parent directory', () => {
    expect(closedAncestor(dataDir)).toBe(closed);
    expect(closedAncestor(path.join(tmpdir(), 'x', 'y'))).toBeUndefined();
  });

  it('keeps the cluster where the postgres user can reach it, linked from DATA_DIR, and finds it again', async () => {
    running = await startEmbeddedPostgres({ dataDir, logger, relocationRoot });
    await query(running.url, "create table kept (note text); insert into kept values ('relocated')");
    await running.stop();
    running = undefined;
    const link = path.join(dataDir, 'postgres');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(path.dirname(readlinkSync(link))).toBe(relocationRoot);

    running = await startEmbeddedPostgres({ dataDir, logger, relocationRoot });
    expect(await query(running.url, 'select note from kept')).toEqual([{ note: 'relocated' }]);
    await running.stop();
    running = undefined;
  });

  it('says in one sentence what to do when no place is usable', () => {
    const other = path.join(closed, 'other', 'data');
    mkdirSync(other, { recursive: true });
    const notADirectory = path.join(closed, 'a-file');
    writeFileSync(notADirectory, '');
    expect(() => clusterLocation(other, path.join(notADirectory, 'clusters'))).toThrow(
      new RegExp(`cannot reach ${other} because ${closed} lets only its owner in.*set DATA_DIR`),
    );
    // A cluster already inside DATA_DIR is never moved behind the user's back.
    mkdirSync(path.join(other, 'postgres'));
    expect(() => clusterLocation(other, relocationRoot)).toThrow(/chmod o\+x/);
  });
});
