import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** solc-js as the tests call it: standard JSON in, standard JSON out, imports through a callback. */
interface Solc {
  compile(input: string, callbacks?: { import(p: string): { contents: string } | { error: string } }): string;
}

/** Where OpenZeppelin and the other packages a test source may import from are installed. */
const NODE_MODULES = path.resolve(__dirname, '..', '..', 'node_modules');

const versionOf = (pkg: string): string =>
  (JSON.parse(readFileSync(path.join(NODE_MODULES, pkg, 'package.json'), 'utf8')) as { version: string }).version;

/** Reads an import (`@openzeppelin/contracts/...`) from node_modules, as solc's import callback. */
function importFromNodeModules(p: string): { contents: string } | { error: string } {
  try {
    return { contents: readFileSync(path.join(NODE_MODULES, p), 'utf8') };
  } catch {
    return { error: `not found: ${p}` };
  }
}

/**
 * solc-js's standard-JSON output for `input`, from a file of the machine's temporary directory named
 * by a digest of the input, the compiler package's version and OpenZeppelin's (the only library the
 * test sources import): solc (a WebAssembly module) loads and compiles a test's contracts once per
 * machine instead of once per test file and project. `solcPackage` is `solc` (0.8.20, the portal's
 * release) or one of the other installed releases' npm aliases (`solc-0.8.24`); it is loaded only
 * when the output is not in the cache. The test checks the output's errors as before.
 */
export function compileCached(input: string, solcPackage = 'solc'): string {
  const digest = createHash('sha256')
    .update(`${input}\n${solcPackage}@${versionOf(solcPackage)}\n${versionOf('@openzeppelin/contracts')}`)
    .digest('hex');
  const dir = path.join(tmpdir(), `devportal-test-solc-${process.getuid?.() ?? 0}`);
  const file = path.join(dir, `${digest}.json`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    // not compiled on this machine yet
  }
  // solc ships no type declarations; loaded only when the output is not in the cache.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const solc = require(solcPackage) as Solc;
  const output = solc.compile(input, { import: importFromNodeModules });
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, output);
    renameSync(partial, file);
  } catch {
    // A cache that cannot be written only costs the next run a compile.
  }
  return output;
}
