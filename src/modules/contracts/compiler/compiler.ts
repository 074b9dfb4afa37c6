import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type pino from 'pino';
import { AppError, type ErrorDetails } from '../../../errors/app-error';
import type { ErrorCode } from '../../../errors/error-codes';
import { DEFAULT_MAX_SOURCE_BYTES, type SortedSources, sourceHashOf, validateCompileInput } from './compile-input';
import type { CompileInput, CompileResult, CompilerInfo } from './compiler.types';
import { APPROVED_LIBRARY, collectSources } from './import-policy';
import { LRUCache } from 'lru-cache';
import {
  compilationFailed,
  type InterpretedOutput,
  interpretOutput,
  selectContracts,
  serviceDiagnostic,
} from './solc-output';
import { SolcWorkerPool, type SolcWorkerPoolStats } from './solc-worker-pool';

export type { CompileDiagnostic, CompileInput, CompileResult, CompiledContract, CompilerInfo } from './compiler.types';
export { findOpcode, PUSH0 } from './opcode-scan';

/** The one solc release the service compiles with (API.md §5). */
const SOLC_RELEASE = (JSON.parse(readFileSync(require.resolve('solc/package.json'), 'utf8')) as { version: string })
  .version;
/** Settings of every compile: `paris` has no PUSH0, which the QBFT chains do not support. */
const EVM_VERSION = 'paris';
const OPTIMIZER = { enabled: true, runs: 200 } as const;
const OUTPUT_SELECTION = [
  'abi',
  'evm.bytecode.object',
  'evm.deployedBytecode.object',
  'evm.deployedBytecode.immutableReferences',
];

export interface SolidityCompilerOptions {
  /** Worker threads (default: one per spare core, at least 1, at most 4; 1 on a 2-core machine). */
  workers?: number;
  /** A compile running longer fails with 422 COMPILATION_FAILED and its worker is replaced (default 20 s). */
  timeoutMs?: number;
  /** Total UTF-8 size of the submitted sources (default 512 KiB). */
  maxSourceBytes?: number;
  /** Compile outcomes remembered, least recently used first out (default 200; 0 disables). */
  cacheEntries?: number;
  /** Compiles allowed to wait for a busy worker before 503 SERVICE_UNAVAILABLE (default 50). */
  maxQueued?: number;
  logger?: pino.Logger;
}

/** Counters for tests and metrics. */
export interface SolidityCompilerStats extends SolcWorkerPoolStats {
  cacheHits: number;
}

/** A remembered outcome: a success, or a failure that the same input would reproduce. */
type CachedCompile =
  | { ok: true; output: InterpretedOutput }
  | { ok: false; error: { code: ErrorCode; message: string; details?: ErrorDetails } };

/** `0.8.20+commit.a1b79de6` out of solc's `0.8.20+commit.a1b79de6.Emscripten.clang` (the form verifiers use). */
function releaseVersion(longVersion: string | undefined): string {
  return /^\d+\.\d+\.\d+\+commit\.[0-9a-f]+/.exec(longVersion ?? '')?.[0] ?? SOLC_RELEASE;
}

/**
 * Compiles Solidity with solc 0.8.20 (paris, optimizer 200 runs) in worker threads, under the
 * import policy of API.md §5, with an LRU cache of outcomes. Every failure is an AppError:
 * 400 VALIDATION_FAILED (bad input, unknown contractName), 422 IMPORT_NOT_ALLOWED,
 * 422 COMPILATION_FAILED (solc errors, a solc crash on the input, a timeout),
 * 503 SERVICE_UNAVAILABLE (queue full, shut down), 500 INTERNAL (solc cannot start).
 */
export class SolidityCompiler {
  private readonly pool: SolcWorkerPool;
  private readonly cache: LRUCache<string, CachedCompile>;
  /** Identical compiles running now share one worker run. */
  private readonly inFlight = new Map<string, Promise<CachedCompile>>();
  private readonly maxSourceBytes: number;
  private readonly logger: pino.Logger | undefined;
  private cacheHits = 0;

  constructor(opts: SolidityCompilerOptions = {}) {
    const workers = opts.workers ?? Math.min(4, availableParallelism() - 1);
    this.pool = new SolcWorkerPool({
      size: Math.max(1, Math.floor(workers)),
      timeoutMs: opts.timeoutMs ?? 20_000,
      maxQueued: opts.maxQueued ?? 50,
      logger: opts.logger,
    });
    this.cache = new LRUCache({ max: Math.max(1, opts.cacheEntries ?? 200) });
    this.maxSourceBytes = opts.maxSourceBytes ?? DEFAULT_MAX_SOURCE_BYTES;
    this.logger = opts.logger;
  }

  get stats(): SolidityCompilerStats {
    return { ...this.pool.stats, cacheHits: this.cacheHits };
  }

  /** The compiler settings results carry. */
  get compilerInfo(): CompilerInfo {
    return { version: releaseVersion(this.pool.version), evmVersion: EVM_VERSION, optimizer: { ...OPTIMIZER } };
  }

  /** Starts a worker now instead of on the first compile (soljson takes ~1 s to load). */
  warmUp(): Promise<void> {
    return this.pool.warmUp();
  }

  /** Compiles `input.sources`; returns every deployable contract of them, or only `input.contractName`. */
  async compile(input: CompileInput): Promise<CompileResult> {
    const valid = validateCompileInput(input, this.maxSourceBytes);
    const key = this.cacheKeyOf(valid.sources);
    let entry = this.cache.get(key);
    if (entry) {
      this.cacheHits += 1;
    } else {
      let running = this.inFlight.get(key);
      if (!running) {
        running = this.compileUncached(valid.sources, key).finally(() => this.inFlight.delete(key));
        this.inFlight.set(key, running);
      }
      entry = await running;
    }
    if (!entry.ok) {
      // A fresh error per caller: cached details must not be shared or mutated.
      throw new AppError(entry.error.code, entry.error.message, structuredClone(entry.error.details));
    }
    return {
      compiler: this.compilerInfo,
      contracts: structuredClone(selectContracts(entry.output, valid.contractName)),
      warnings: structuredClone(entry.output.warnings),
      sourceHash: sourceHashOf(valid.sources),
    };
  }

  /** Terminates the workers; later compiles fail with 503 SERVICE_UNAVAILABLE. */
  close(): Promise<void> {
    return this.pool.close();
  }

  /**
   * Runs one compile and decides what may be cached: successes, solc's own errors and solc crashes
   * (all reproduce on the same input, and caching crashes stops one input from killing workers over
   * and over). Not cached: timeouts (they depend on load), internal compiler errors (they may come
   * from a worker's state), refused imports and anything thrown before solc runs (cheap to redo).
   */
  private async compileUncached(sources: SortedSources, key: string): Promise<CachedCompile> {
    const allSources = await collectSources(sources);
    const standardJson = JSON.stringify({
      language: 'Solidity',
      sources: Object.fromEntries(Object.entries(allSources).map(([name, content]) => [name, { content }])),
      settings: {
        evmVersion: EVM_VERSION,
        optimizer: OPTIMIZER,
        // Outputs of the submitted files only (library files are compiled, not listed). No AST: its
        // JSON export makes deeply nested expressions take minutes.
        outputSelection: Object.fromEntries(sources.map(([name]) => [name, { '*': OUTPUT_SELECTION }])),
      },
    });
    const started = Date.now();
    const outcome = await this.pool.run(standardJson);
    this.logger?.debug(
      { ms: Date.now() - started, kind: outcome.kind, files: sources.length },
      'solc compile finished',
    );

    let entry: CachedCompile;
    let cacheable = true;
    if (outcome.kind === 'timed-out') {
      const seconds = Math.round(outcome.timeoutMs / 100) / 10;
      entry = this.failure(compilationFailed([serviceDiagnostic(`compilation timed out after ${seconds} s`)]));
      cacheable = false;
    } else if (outcome.kind === 'crashed') {
      entry = this.failure(
        compilationFailed([serviceDiagnostic(`the compiler crashed on this input (${outcome.reason})`)]),
      );
    } else {
      cacheable = !outcome.internalError;
      try {
        entry = {
          ok: true,
          output: interpretOutput(
            outcome.output,
            sources.map(([name]) => name),
            outcome.refusedImports,
          ),
        };
      } catch (e) {
        if (!(e instanceof AppError) || e.code !== 'COMPILATION_FAILED') throw e;
        entry = this.failure(e);
      }
    }
    if (cacheable) this.cache.set(key, entry);
    return entry;
  }

  private failure(error: AppError): CachedCompile {
    return { ok: false, error: { code: error.code, message: error.message, details: error.details } };
  }

  /** SHA-256 of everything that determines the output: release, settings, library version, sources. */
  private cacheKeyOf(sources: SortedSources): string {
    const settings = { solc: SOLC_RELEASE, evmVersion: EVM_VERSION, optimizer: OPTIMIZER, outputs: OUTPUT_SELECTION };
    return createHash('sha256')
      .update(JSON.stringify({ settings, library: APPROVED_LIBRARY, sources }))
      .digest('hex');
  }
}
