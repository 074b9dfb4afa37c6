/** Messages between SolcWorkerPool and solc-worker.mts (types only: the worker imports nothing at run time). */

/** What the pool passes at start. */
export interface SolcWorkerData {
  /** Absolute path of solc's package.json; solc is loaded relative to it. */
  solcPackageJson: string;
  /** solc's wasm memory may not grow past this; a compile that needs more fails as a crash. */
  maxHeapBytes: number;
}

/** Pool → worker. */
export interface CompileRequest {
  type: 'compile';
  id: number;
  /** Standard JSON input, already stringified. */
  input: string;
}

/** Worker → pool. */
export type WorkerMessage =
  | { type: 'ready'; version: string }
  | {
      type: 'compiled';
      id: number;
      /** Standard JSON output, as solc printed it. */
      output: string;
      /** Files solc asked the import callback for: all were refused (everything allowed is supplied up front). */
      refusedImports: string[];
      /** solc reported an internal exception: its state may be corrupt, so the pool retires this worker. */
      internalError: boolean;
      /** Size of the wasm heap after this compile (it never shrinks). */
      heapBytes: number;
    }
  | { type: 'crashed'; id: number; reason: string };
