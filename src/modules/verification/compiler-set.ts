import { PORTAL_SOLC_RELEASE, solcPackageOf } from '../contracts';

/**
 * The compilers verification accepts (docs/api.md, "Verification", compiler set): solc releases
 * installed from npm, nothing downloaded at run time. A release below is in the set when its
 * package is installed (`solc`, or the alias `solc-<release>`); the compile service gives it
 * workers of its own on its first use.
 */

/** Every EVM version any release below knows, oldest first; `default` (or none) leaves solc's own choice. */
const ALL_EVM_VERSIONS = [
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
  'cancun',
  'prague',
] as const;

type EvmVersion = (typeof ALL_EVM_VERSIONS)[number];

/** The EVM versions from `homestead` to `last`, as a release accepts them. */
const upTo = (last: EvmVersion): readonly string[] => ALL_EVM_VERSIONS.slice(0, ALL_EVM_VERSIONS.indexOf(last) + 1);

/**
 * The 0.8.x releases that may be installed: their commits as solc's long versions name them
 * (`require('solc-0.8.24').version()`), and the newest EVM version each accepts (found by
 * compiling with every `evmVersion`: 0.8.20 adds shanghai, 0.8.24 cancun, 0.8.28 prague).
 */
const RELEASES: ReadonlyArray<{ release: string; commit: string; evmVersions: readonly string[] }> = [
  { release: '0.8.19', commit: '7dd6d404', evmVersions: upTo('paris') },
  { release: '0.8.20', commit: 'a1b79de6', evmVersions: upTo('shanghai') },
  { release: '0.8.24', commit: 'e11b9ed9', evmVersions: upTo('cancun') },
  { release: '0.8.28', commit: '7893614a', evmVersions: upTo('prague') },
];

/** An installed compiler verification may use. */
export interface InstalledCompiler {
  /** Etherscan's name: `v0.8.24+commit.e11b9ed9`. */
  version: string;
  /** `0.8.24`: the release the compile service loads. */
  release: string;
  /** The EVM versions it accepts (besides `default`). */
  evmVersions: readonly string[];
}

let installed: InstalledCompiler[] | undefined;

/** The installed set: the portal's release first, then the others, oldest first. */
export function installedCompilers(): InstalledCompiler[] {
  installed ??= RELEASES.filter(({ release }) => solcPackageOf(release) !== null)
    .map(({ release, commit, evmVersions }) => ({ version: `v${release}+commit.${commit}`, release, evmVersions }))
    .sort((a, b) => Number(b.release === PORTAL_SOLC_RELEASE) - Number(a.release === PORTAL_SOLC_RELEASE));
  return installed;
}

/** The versions verification compiles with, as Etherscan names them. */
export function compilerVersions(): string[] {
  return installedCompilers().map((c) => c.version);
}

/** The EVM versions a verification may state with some installed compiler, oldest first. */
export function evmVersions(): string[] {
  const known = new Set(installedCompilers().flatMap((c) => c.evmVersions));
  return ALL_EVM_VERSIONS.filter((v) => known.has(v));
}

/**
 * The installed compiler a requested version names (`v0.8.24+commit.e11b9ed9`, with or without
 * a platform suffix such as `.Linux.gcc` or `.Emscripten.clang`, with or without the `v`), or null.
 */
export function installedCompiler(requested: string): InstalledCompiler | null {
  const m = /^v?(\d+\.\d+\.\d+)\+commit\.([0-9a-f]{8})(?:\.[A-Za-z0-9.]+)?$/.exec(requested.trim());
  if (!m) return null;
  const version = `v${m[1]}+commit.${m[2]}`;
  return installedCompilers().find((c) => c.version === version) ?? null;
}
