import { readFileSync } from 'node:fs';
import path from 'node:path';

// `npm ci` refuses a lock file that lacks any optional dependency of a locked package, even one
// built for another platform (npm records them only when it resolves from scratch: npm/cli#4828).

interface LockEntry {
  version?: string;
  optionalDependencies?: Record<string, string>;
}

const root = path.resolve(__dirname, '../..');
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

/** Where Node's resolution from `from` would find `name` in the locked tree, if anywhere. */
function locate(from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

test('every optional dependency of every locked package has a lock entry, whatever its platform', () => {
  const missing: string[] = [];
  for (const [location, entry] of Object.entries(lock.packages)) {
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      if (locate(location, name) === undefined) missing.push(`${location} -> ${name}`);
    }
  }
  expect(missing).toEqual([]);
});

test('the anvil binaries of macOS, Linux and Windows are locked at the version of @foundry-rs/anvil', () => {
  const version = pkg.dependencies['@foundry-rs/anvil'];
  for (const platform of ['darwin-amd64', 'darwin-arm64', 'linux-amd64', 'linux-arm64', 'win32-amd64']) {
    expect(lock.packages[`node_modules/@foundry-rs/anvil-${platform}`]?.version).toBe(version);
  }
});
