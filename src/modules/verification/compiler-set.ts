import { readFileSync } from 'node:fs';

/**
 * The compilers verification accepts (docs/api.md, "Verification"): solc releases installed from
 * npm, nothing downloaded at run time. Today the compile workers run the one `solc` package, so
 * the set is that release; another release joins when it is installed and its workers exist.
 */

/** Commits of the 0.8.x releases that may be installed, as solc's long versions name them. */
const RELEASE_COMMITS: Record<string, string> = {
  '0.8.20': 'a1b79de6',
  '0.8.24': 'e11b9ed9',
  '0.8.28': '7893614a',
};

/** The EVM versions solc 0.8.20 knows; `default` (or none) leaves solc's own choice. */
export const EVM_VERSIONS = [
  'homestead',
  'tangerineWhistle',
  'spuriousDragon',
  'byzantium',
  'constantinople',
  'petersburg',
  'istanbul',
  'berlin',
  'london',
  'paris',
  'shanghai',
] as const;

const installedRelease = (JSON.parse(readFileSync(require.resolve('solc/package.json'), 'utf8')) as { version: string })
  .version;

/** `v0.8.20+commit.a1b79de6` of a release. */
const longName = (release: string) => `v${release}+commit.${RELEASE_COMMITS[release] ?? 'unknown'}`;

/** The versions verification compiles with, as Etherscan names them. */
export function compilerVersions(): string[] {
  return [longName(installedRelease)];
}

/**
 * The installed release a requested version names (`v0.8.20+commit.a1b79de6`, with or without a
 * platform suffix such as `.Linux.gcc` or `.Emscripten.clang`, with or without the `v`), or null.
 */
export function installedCompiler(requested: string): string | null {
  const m = /^v?(\d+\.\d+\.\d+)\+commit\.([0-9a-f]{8})(?:\.[A-Za-z0-9.]+)?$/.exec(requested.trim());
  if (!m) return null;
  const [, release, commit] = m;
  if (release !== installedRelease || RELEASE_COMMITS[release] !== commit) return null;
  return longName(release);
}
