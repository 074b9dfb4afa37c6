import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RELOCATED_CLUSTERS_DIR } from '../../src/database/embedded-postgres';
import { freePort } from '../kit/process';

// The zero-config service started as root from a project inside a 0700 directory (a clone under
// /root): its node_modules, and so the PostgreSQL binaries, are out of the postgres user's reach as
// well as its data directory (README, "PostgreSQL refuses to run as root"). The project here is
// this one seen through links inside the closed directory, and Node keeps the linked paths
// (--preserve-symlinks), so every module, the PostgreSQL package included, is found inside the
// closed directory as in a real clone there.

const ROOT = path.resolve(__dirname, '../..');
const asRoot = process.getuid?.() === 0 ? describe : describe.skip;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

asRoot('the zero-config start of a project inside a 0700 directory, as root', () => {
  const home = mkdtempSync(path.join(tmpdir(), 'closed-home-'));
  const project = path.join(home, 'project');
  const dataDir = path.join(project, 'data');
  let relocatedCluster: string | undefined;

  beforeAll(() => {
    chmodSync(home, 0o700);
    mkdirSync(project);
    for (const entry of ['node_modules', 'dist', 'package.json']) {
      symlinkSync(path.join(ROOT, entry), path.join(project, entry));
    }
  });
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    if (relocatedCluster) rmSync(relocatedCluster, { recursive: true, force: true });
  });

  it('runs PostgreSQL from a copy the postgres user can reach, serves, and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    const main = path.join(project, 'dist/src/main.js');
    const service = spawn(process.execPath, ['--preserve-symlinks', '--preserve-symlinks-main', main], {
      cwd: project,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        WEB_CONCURRENCY: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    service.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    service.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => service.once('exit', (code) => resolve(code)));
    const logged = () =>
      output.split('\n').flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as Record<string, unknown>] : []));

    try {
      const deadline = Date.now() + 90_000;
      for (;;) {
        if (service.exitCode !== null) throw new Error(`the service ended:\n${output}`);
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (res) => res.status === 200,
          () => false,
        );
        if (ready) break;
        if (Date.now() > deadline) throw new Error(`the service did not get ready:\n${output}`);
        await sleep(250);
      }
      const link = path.join(dataDir, 'postgres');
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      relocatedCluster = realpathSync(link);
      expect(path.dirname(relocatedCluster)).toBe(RELOCATED_CLUSTERS_DIR);

      // The binaries came from the package inside the closed directory, and run from their copy.
      const copied = logged().find((l) => l.msg === 'PostgreSQL runs from a copy the postgres user can reach');
      expect(copied?.installation).toEqual(
        expect.stringMatching(new RegExp(`^${RELOCATED_CLUSTERS_DIR}/postgresql-\\d[\\w.-]*-[0-9a-f]{16}$`)),
      );
      const postmaster = Number(readFileSync(path.join(relocatedCluster, 'postmaster.pid'), 'utf8').split('\n')[0]);
      expect(readlinkSync(`/proc/${postmaster}/exe`)).toBe(path.join(copied!.installation as string, 'bin/postgres'));
      // An answer read from the database.
      const status = await fetch(`http://127.0.0.1:${port}/api/explorer/network-status?network=testnet`);
      expect(status.status).toBe(200);

      service.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(existsSync(`/proc/${postmaster}`)).toBe(false);
    } finally {
      if (service.exitCode === null && service.signalCode === null) service.kill('SIGKILL');
    }
  }, 150_000);
});
