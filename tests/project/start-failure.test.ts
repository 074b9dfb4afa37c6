import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { MAIN } from '../kit/process';

// The built service as a newcomer starts it, with an embedded PostgreSQL that cannot be created:
// one line on stderr says why (initdb's own complaint, never a stack frame), and nothing of the
// failed cluster is left behind. As root, the data directory sits under a 0700 directory, so the
// cluster is relocated for the postgres user and that relocated directory must go too.

describe('a first start whose database cannot be created', () => {
  const home = mkdtempSync(path.join(tmpdir(), 'closed-home-'));
  const dataDir = path.join(home, 'project', 'data');

  beforeAll(() => chmodSync(home, 0o700));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('prints the cause in one line, exits 1 and leaves no cluster behind', async () => {
    // initdb refuses a locale that does not exist: a real failure of the program, no mock.
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, PORT: '0', LC_ALL: 'xx_YY.bogus' };
    const failed = await promisify(execFile)(process.execPath, [MAIN], { env }).then(
      () => undefined,
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed!.stderr).toBe(
      'Start-up failed: the embedded PostgreSQL did not start: initdb failed (exit code 1): ' +
        'initdb: error: invalid locale settings; check LANG and LC_* environment variables.\n',
    );

    const logged = failed!.stdout
      .split('\n')
      .flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as Record<string, unknown>] : []));
    expect(logged.some((l) => l.msg === 'Creating PostgreSQL cluster')).toBe(true);
    const relocated = logged.find((l) => l.msg === 'PostgreSQL cluster kept outside DATA_DIR')?.clusterDir;
    if (process.getuid?.() === 0) expect(relocated).toEqual(expect.stringContaining('/postgres-'));
    if (typeof relocated === 'string') expect(existsSync(relocated)).toBe(false);
    expect(readdirSync(dataDir).filter((name) => name.startsWith('postgres'))).toEqual([]);
  }, 60_000);
});
