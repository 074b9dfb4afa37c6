import { readFileSync } from 'node:fs';

/**
 * The solc releases installed from npm (docs/api.md, "Verification", compiler set): the `solc`
 * package the portal compiles with, and other 0.8.x releases beside it as npm aliases named
 * `solc-<release>` (`"solc-0.8.24": "npm:solc@0.8.24"`). Nothing is downloaded at run time.
 */

/** Version of the npm package whose package.json is `packageJson`, or null when it cannot be read. */
function versionOf(packageJson: string): string | null {
  try {
    const { version } = JSON.parse(readFileSync(packageJson, 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : null;
  } catch {
    return null;
  }
}

/** The release of the `solc` package: the portal's compiler (docs/api.md, "Contracts"). */
export const PORTAL_SOLC_RELEASE = versionOf(require.resolve('solc/package.json')) ?? '0.8.20';

const packages = new Map<string, string | null>();

/**
 * Absolute path of the package.json of the installed solc `release` (`0.8.24`), or null when it
 * is not installed: `solc` itself, else the alias `solc-<release>` whose package is that release.
 */
export function solcPackageOf(release: string): string | null {
  if (!/^\d+\.\d+\.\d+$/.test(release)) return null;
  if (release === PORTAL_SOLC_RELEASE) return require.resolve('solc/package.json');
  let found = packages.get(release);
  if (found === undefined) {
    try {
      found = require.resolve(`solc-${release}/package.json`);
      if (versionOf(found) !== release) found = null;
    } catch {
      found = null;
    }
    packages.set(release, found);
  }
  return found;
}
