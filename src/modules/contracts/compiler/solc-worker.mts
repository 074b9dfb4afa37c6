/**
 * Worker thread entry: loads soljson once and compiles standard-JSON inputs for SolcWorkerPool.
 * Self-contained on purpose (node builtins only; its types are erasable): under ts-jest, Node 24
 * runs this .mts file itself with its built-in type stripping; the build runs tsc's solc-worker.mjs.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type { CompileRequest, SolcWorkerData, WorkerMessage } from './solc-worker-protocol.js';

/** The part of solc-js's wrapper used here. */
interface SolcWrapper {
  version(): string;
  compile(input: string, callbacks: { import(path: string): { contents: string } | { error: string } }): string;
}

/** The emscripten module behind solc-js; HEAPU8 is replaced whenever the heap grows. */
interface SoljsonModule {
  HEAPU8?: Uint8Array;
}

/** solc error types that mean the compiler itself failed, not the source. */
const INTERNAL_ERROR_TYPES = new Set(['InternalCompilerError', 'Exception']);

function hasInternalError(output: string): boolean {
  try {
    const parsed = JSON.parse(output) as { errors?: Array<{ type?: string }> };
    return (parsed.errors ?? []).some((e) => INTERNAL_ERROR_TYPES.has(e.type ?? ''));
  } catch {
    return true; // output that is not JSON is itself a sign of a broken compiler
  }
}

function start(): void {
  const port = parentPort;
  if (!port) throw new Error('solc-worker must run in a worker thread');
  const { solcPackageJson, maxHeapBytes } = workerData as SolcWorkerData;
  // The wasm heap lives outside V8's resourceLimits: its growth is refused here instead, so that
  // solc fails with an out-of-memory abort (a crash the pool handles) rather than take the process.
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = function (this: WebAssembly.Memory, delta: number): number {
    if (this.buffer.byteLength + delta * 65_536 > maxHeapBytes) {
      throw new RangeError(`solc memory limit of ${maxHeapBytes} bytes reached`);
    }
    return grow.call(this, delta);
  };
  const requireFromSolc = createRequire(solcPackageJson);
  // require() is untyped; the interfaces above describe the few members used.
  const solc = requireFromSolc('./index.js') as SolcWrapper;
  const soljson = requireFromSolc('./soljson.js') as SoljsonModule;
  port.postMessage({ type: 'ready', version: solc.version() } satisfies WorkerMessage);

  port.on('message', (request: CompileRequest) => {
    const refusedImports: string[] = [];
    let output: string;
    try {
      output = solc.compile(request.input, {
        import(importPath: string) {
          refusedImports.push(importPath);
          return { error: 'import not allowed' };
        },
      });
    } catch (e) {
      // RangeError (stack overflow), RuntimeError (memory access out of bounds, abort): soljson is
      // unusable from here on, and every later compile would fail; the pool replaces this worker.
      const reason = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      port.postMessage({ type: 'crashed', id: request.id, reason } satisfies WorkerMessage);
      return;
    }
    port.postMessage({
      type: 'compiled',
      id: request.id,
      output,
      refusedImports,
      internalError: hasInternalError(output),
      heapBytes: soljson.HEAPU8?.byteLength ?? 0,
    } satisfies WorkerMessage);
  });
}

start();
