'use strict';
/**
 * Jest's module runtime with V8's code cache: every test file gets a fresh module registry, so each
 * worker compiles the same node_modules and sources again for every file (about two thirds of a
 * second of CPU per integration file). This runtime hands V8 the code cache of a module it has
 * compiled before (kept in the worker's memory and in a directory shared by the machine's runs).
 * Each module is wrapped in a script with Jest's module parameters, as Jest up to 26 did, so that
 * its cache can be made after the test file ran, lazily compiled functions included. A cache V8
 * rejects (another V8, other flags) is simply recompiled and replaced. The module semantics (a fresh registry per file) are unchanged.
 */
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { Script } = require('node:vm');
const Runtime = require('jest-runtime').default;

const DIR = path.join(tmpdir(), `devportal-jest-code-cache-${process.getuid?.() ?? 0}-${process.version}`);
mkdirSync(DIR, { recursive: true, mode: 0o700 });

/** filename → the source digest and V8's cache for it, for this worker's later test files. */
const memory = new Map();

function cacheOf(filename, digest) {
  const known = memory.get(filename);
  if (known?.digest === digest) return known.data;
  try {
    return readFileSync(path.join(DIR, digest));
  } catch {
    return undefined;
  }
}

function keep(filename, digest, data) {
  memory.set(filename, { digest, data });
  const file = path.join(DIR, digest);
  const temporary = `${file}.${process.pid}`;
  try {
    writeFileSync(temporary, data);
    renameSync(temporary, file);
  } catch {
    // A cache that cannot be written only costs the next run a compile.
  }
}

/** Scripts compiled without a usable cache: their cache is made at the test file's end, lazily compiled functions included. */
const fresh = [];

/**
 * Jest's compile (jest-runtime's module executor) with V8's code cache; `jestCompile` is Jest's own,
 * used for core modules and whenever this one throws (Jest's errors, e.g. syntax errors with their frame).
 * The module is wrapped as Jest wraps it (the same parameters), in a script whose cache can be made
 * after it ran.
 */
function compileWithCache(executor, jestCompile, scriptSource, filename) {
  const vmContext = executor.environment.getVmContext();
  if (vmContext == null || executor.resolution.isCoreModule(filename)) return jestCompile(scriptSource, filename);
  const digest = createHash('sha1').update(filename).update('\0').update(scriptSource).digest('hex');
  const wrapped = `({"Object.<anonymous>":function(${executor.injectedModuleParameters.join(',')}){${scriptSource}\n}});`;
  try {
    const cachedData = cacheOf(filename, digest);
    const script = new Script(wrapped, {
      filename,
      cachedData,
      importModuleDynamically: (specifier, _script, importAttributes, ...rest) =>
        executor.dynamicImport(specifier, filename, vmContext, importAttributes, rest[0]),
    });
    if (cachedData === undefined || script.cachedDataRejected) fresh.push({ script, filename, digest });
    else if (memory.get(filename)?.digest !== digest) memory.set(filename, { digest, data: cachedData });
    return script.runInContext(vmContext)['Object.<anonymous>'];
  } catch {
    return jestCompile(scriptSource, filename);
  }
}

class CodeCacheRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    const executor = this.executor;
    if (!executor || typeof executor.compile !== 'function') return; // another Jest: its own compile
    const jestCompile = executor.compile.bind(executor);
    executor.compile = (scriptSource, filename) => compileWithCache(executor, jestCompile, scriptSource, filename);
  }

  teardown() {
    for (const { script, filename, digest } of fresh.splice(0)) {
      try {
        keep(filename, digest, script.createCachedData());
      } catch {
        // no cache this time
      }
    }
    return super.teardown();
  }
}

module.exports = CodeCacheRuntime;
module.exports.default = CodeCacheRuntime;
