import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../kit/process';

// `npm start` as Docker and process managers run it: SIGTERM to the npm process stops the service,
// the embedded PostgreSQL and both dev chains; the build step is skipped when nothing changed.
// The project's data lives under a directory only its owner may enter, like a clone under /root.

const ROOT = path.resolve(__dirname, '../..');

/** Every process below `pid` (Linux /proc), with its command line. */
function descendants(pid: number): Map<number, string> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const found = new Map<number, string>();
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      try {
        found.set(child, readFileSync(`/proc/${child}/cmdline`, 'utf8').replace(/\0/g, ' ').trim());
      } catch {
        continue;
      }
      queue.push(child);
    }
  }
  return found;
}

const alive = (pid: number) => {
  try {
    // A zombie still answers kill(0) until its parent reaps it; it runs nothing.
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('npm start', () => {
  const home = mkdtempSync(path.join(tmpdir(), 'closed-home-'));
  const dataDir = path.join(home, 'project-data');
  let relocatedCluster: string | undefined;

  beforeAll(() => {
    chmodSync(home, 0o700);
    // The built output is current, as after any earlier build.
    expect(spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT }).status).toBe(0);
  }, 120_000);

  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    if (relocatedCluster) rmSync(relocatedCluster, { recursive: true, force: true });
  });

  it('does not rebuild what is up to date', () => {
    const main = path.join(ROOT, 'dist/src/main.js');
    const before = statSync(main).mtimeMs;
    const started = Date.now();
    expect(spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT }).status).toBe(0);
    expect(statSync(main).mtimeMs).toBe(before);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('stops the service, the database and both dev chains when the npm process gets SIGTERM', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    npm.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));

    const deadline = Date.now() + 90_000;
    for (;;) {
      if (npm.exitCode !== null) throw new Error(`npm start ended:\n${output}`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (res) => res.status === 200,
        () => false,
      );
      if (ready) break;
      if (Date.now() > deadline) {
        npm.kill('SIGKILL');
        throw new Error(`npm start did not get ready:\n${output}`);
      }
      await sleep(250);
    }

    const started = descendants(npm.pid!);
    const commands = [...started.values()];
    expect(commands.filter((command) => /\banvil\b/.test(command))).toHaveLength(2);
    expect(commands.some((command) => /\bpostgres\b/.test(command) && !command.includes('node'))).toBe(true);
    expect(commands.some((command) => command.includes('dist/src/main.js'))).toBe(true);
    const link = path.join(dataDir, 'postgres');
    if (lstatSync(link).isSymbolicLink()) relocatedCluster = realpathSync(link);

    npm.kill('SIGTERM');
    // The 40 s limit's timer is cleared when npm exits first: left running, it kept jest alive 40 s.
    let limit: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      exited,
      new Promise<'timeout'>((resolve) => (limit = setTimeout(() => resolve('timeout'), 40_000))),
    ]);
    clearTimeout(limit);
    expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
    const until = Date.now() + 10_000;
    let left = [...started].filter(([pid]) => alive(pid));
    while (left.length > 0 && Date.now() < until) {
      await sleep(200);
      left = left.filter(([pid]) => alive(pid));
    }
    expect(left.map(([pid, command]) => `${pid} ${command}`)).toEqual([]);
  }, 180_000);
});
