import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type pino from 'pino';
import { AppError, type ErrorDetails } from '../../../kernel/errors/app-error';
import type { ErrorCode } from '../../../kernel/errors/error-codes';
import { DEFAULT_MAX_SOURCE_BYTES, type SortedSources, sourceHashOf, validateCompileInput } from './compile-input';
import type { CompileInput, CompileResult, CompilerInfo } from './compiler.types';
import { APPROVED_LIBRARY, collectSources } from './import-policy';
import { LRUCache } from 'lru-cache';
import { abiExcess, tooComplex } from '../abi-limits';
import {
  compilationFailed,
  type InterpretedOutput,
  interpretOutput,
  selectContracts,
  serviceDiagnostic,
} from './solc-output';
import {
  type PoolOutcome,
  SolcWorkerPool,
  type SolcWorkerPoolOptions,
  type SolcWorkerPoolStats,
} from './solc-worker-pool';
import { PORTAL_SOLC_RELEASE, solcPackageOf } from './solc-releases';
import { sourceShapeKey } from './source-shape';
import type { CompileStore } from './compile-store';
import type { ConnectionCap } from '../../../kernel/limit-store';

export type { CompileDiagnostic, CompileInput, CompileResult, CompiledArtifact, CompilerInfo } from './compiler.types';
export { findOpcode, PUSH0 } from './opcode-scan';
export type { PoolOutcome } from './solc-worker-pool';
export { PORTAL_SOLC_RELEASE, solcPackageOf } from './solc-releases';

/** The one solc release the portal compiles with (docs/api.md, "Contracts"). */
const SOLC_RELEASE = PORTAL_SOLC_RELEASE;
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
  /**
   * Worker threads of the developers' lane (default: one per spare core, at least 2, at most 4), so
   * that one developer's pathological compile leaves a worker to the others; the second starts only
   * when the first is busy. The anonymous lane has one more.
   */
  workers?: number;
  /** A compile running longer fails with 422 COMPILATION_FAILED and its worker is replaced (default 20 s). */
  timeoutMs?: number;
  /** The same for anonymous callers, who compile in their own lane (default 5 s). */
  anonymousTimeoutMs?: number;
  /** How long a source that ran out of time or memory is answered 422 at once (default 15 min). */
  exhaustedMemoryMs?: number;
  /** Total UTF-8 size of the submitted sources (default 1 MiB, the body limit). */
  maxSourceBytes?: number;
  /** Compile outcomes remembered, least recently used first out (default 200; 0 disables). */
  cacheEntries?: number;
  /** Worker threads of the anonymous lane (default 2; the second starts only when the first is busy). */
  anonymousWorkers?: number;
  /**
   * Fairness between clients (docs/api.md, "Compile"): a compile that has run this long is stopped
   * (503, Retry-After) when another client's compile has waited `patienceMs` for a worker (default 2 s).
   */
  minSliceMs?: number;
  /** How long a waiting compile lets running ones finish before one is stopped for it (default 1 s). */
  patienceMs?: number;
  /** Compiles allowed to wait for a busy worker before 503 SERVICE_UNAVAILABLE (default 50). */
  maxQueued?: number;
  /**
   * The workers of a release other than the portal's (verification, docs/api.md "Verification")
   * start on its first compile and stop after this long without one (default 2 min).
   */
  releaseIdleMs?: number;
  /** Developers' successful outputs kept on disk across restarts (COMPILE_CACHE_DIR); none when absent. */
  store?: CompileStore;
  /**
   * With REDIS_URL: each client's one compile slot, held across all instances (a cap of 1 per
   * `lane:client` key, kernel/limit-store.ts); without it the slot is this instance's alone.
   */
  sharedSlots?: ConnectionCap;
  logger?: pino.Logger;
}

/** Counters for tests and metrics (both lanes together). */
export interface SolidityCompilerStats extends SolcWorkerPoolStats {
  cacheHits: number;
  /** Compiles answered from the on-disk store, without solc. */
  storeHits: number;
  /** Compiles answered at once because the same source (less comments and layout) exhausted a lane. */
  exhaustedHits: number;
}

/**
 * Who compiles: anonymous callers share one lane with a short time limit; logged-in developers
 * (and deployments) have their own, so an anonymous pathological source never holds them up.
 */
export type CompileLane = 'anonymous' | 'developer';
export const COMPILE_LANES: readonly CompileLane[] = ['developer', 'anonymous'];

/** The caller's compile slot is held on another instance: its refusal, for that caller alone. */
class SharedSlotRefused extends Error {
  constructor(readonly refusal: AppError) {
    super(refusal.message);
  }
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
 * import policy of docs/api.md, "Contracts", with an LRU cache of outcomes. Verification's own
 * inputs (`compileStandardJson`) may name another installed release, which gets pools of its own. Every failure is an AppError:
 * 400 VALIDATION_FAILED (bad input, unknown contractName), 422 IMPORT_NOT_ALLOWED,
 * 422 COMPILATION_FAILED (solc errors, a solc crash on the input, a timeout),
 * 503 SERVICE_UNAVAILABLE (queue full, shut down), 500 INTERNAL (solc cannot start).
 */
export class SolidityCompiler {
  private readonly pool: SolcWorkerPool;
  private readonly anonymousPool: SolcWorkerPool;
  /** Each lane's pool settings, which the other releases' pools of that lane share. */
  private readonly laneOptions: Record<CompileLane, SolcWorkerPoolOptions>;
  /** Pools of the other installed releases, by `release:lane`, made on the first compile with them. */
  private readonly releasePools = new Map<string, SolcWorkerPool>();
  private readonly releaseIdleMs: number;
  private closed = false;
  private readonly cache: LRUCache<string, CachedCompile>;
  /** Sources (by shape) that ran out of time or memory, and in which lane. */
  private readonly exhausted: LRUCache<string, { lane: CompileLane; error: CachedCompile }>;
  private exhaustedHits = 0;
  /** The compile each client has queued or running (a client has at most one), with when it began. */
  private readonly clientCompiles = new Map<string, { since: number; timeoutMs: number }>();
  /** Identical compiles running now share one worker run. */
  private readonly inFlight = new Map<string, Promise<CachedCompile>>();
  private readonly maxSourceBytes: number;
  private readonly logger: pino.Logger | undefined;
  private readonly store: CompileStore | undefined;
  private readonly sharedSlots: ConnectionCap | undefined;
  /** solc's long version as recorded with a stored output, until a worker tells it. */
  private storedVersion: string | undefined;
  private cacheHits = 0;
  private storeHits = 0;

  constructor(opts: SolidityCompilerOptions = {}) {
    const workers = opts.workers ?? Math.max(2, Math.min(4, availableParallelism() - 1));
    const fairness = {
      minSliceMs: opts.minSliceMs ?? 2_000,
      patienceMs: opts.patienceMs ?? 1_000,
      strikeMs: opts.exhaustedMemoryMs ?? 15 * 60_000,
      maxQueued: opts.maxQueued ?? 50,
      logger: opts.logger,
    };
    this.laneOptions = {
      developer: { ...fairness, size: Math.max(1, Math.floor(workers)), timeoutMs: opts.timeoutMs ?? 20_000 },
      anonymous: {
        ...fairness,
        size: Math.max(1, Math.floor(opts.anonymousWorkers ?? 2)),
        timeoutMs: opts.anonymousTimeoutMs ?? 5_000,
      },
    };
    this.pool = new SolcWorkerPool(this.laneOptions.developer);
    this.anonymousPool = new SolcWorkerPool(this.laneOptions.anonymous);
    this.releaseIdleMs = opts.releaseIdleMs ?? 120_000;
    this.exhausted = new LRUCache({ max: 1000, ttl: opts.exhaustedMemoryMs ?? 15 * 60_000 });
    this.cache = new LRUCache({ max: Math.max(1, opts.cacheEntries ?? 200) });
    this.maxSourceBytes = opts.maxSourceBytes ?? DEFAULT_MAX_SOURCE_BYTES;
    this.logger = opts.logger;
    this.store = opts.store;
    this.sharedSlots = opts.sharedSlots;
  }

  /** Counters of every pool, all releases and both lanes together. */
  get stats(): SolidityCompilerStats {
    const total: SolcWorkerPoolStats = {
      workersStarted: 0,
      workersReplaced: 0,
      compilesDispatched: 0,
      crashes: 0,
      timeouts: 0,
      preemptions: 0,
      workers: 0,
      idleStops: 0,
    };
    for (const pool of [this.pool, this.anonymousPool, ...this.releasePools.values()]) {
      const s = pool.stats;
      for (const k of Object.keys(total) as Array<keyof SolcWorkerPoolStats>) total[k] += s[k];
    }
    return { ...total, cacheHits: this.cacheHits, storeHits: this.storeHits, exhaustedHits: this.exhaustedHits };
  }

  /**
   * Counters of the pools of one release (`0.8.24`), both lanes together; null when no compile
   * has asked for that release yet (its pools do not exist: no thread was ever started for it).
   */
  releaseStats(release: string): SolcWorkerPoolStats | null {
    const pools =
      release === SOLC_RELEASE
        ? [this.pool, this.anonymousPool]
        : COMPILE_LANES.flatMap((lane) => this.releasePools.get(`${release}:${lane}`) ?? []);
    if (pools.length === 0) return null;
    const [first, ...rest] = pools.map((p) => p.stats);
    for (const s of rest) for (const k of Object.keys(first!) as Array<keyof SolcWorkerPoolStats>) first![k] += s[k];
    return first!;
  }

  /** Compiles running and waiting for a worker in `lane` now, every release's (tests, metrics). */
  loadOf(lane: CompileLane): { running: number; waiting: number } {
    const load = { ...this.poolOf(lane).load };
    for (const [key, pool] of this.releasePools) {
      if (!key.endsWith(`:${lane}`)) continue;
      load.running += pool.load.running;
      load.waiting += pool.load.waiting;
    }
    return load;
  }

  /** The compiler settings results carry. */
  get compilerInfo(): CompilerInfo {
    return {
      version: releaseVersion(this.pool.version ?? this.anonymousPool.version ?? this.storedVersion),
      evmVersion: EVM_VERSION,
      optimizer: { ...OPTIMIZER },
    };
  }

  /** Starts a worker of `lane` now instead of on the first compile (soljson takes ~1 s to load). */
  warmUp(lane: CompileLane = 'developer'): Promise<void> {
    return this.poolOf(lane).warmUp();
  }

  /**
   * Compiles `input.sources` in `lane`; returns every deployable contract of them, or only
   * `input.contractName`. `client` (an address key of src/kernel/client-address.ts for anonymous
   * callers, a developer id otherwise) has at most one compile queued or running: while it has one,
   * another that is not in the memory caches is refused with 429 RATE_LIMITED and Retry-After (a
   * compile identical to one running shares it and is not refused). The lanes'
   * workers serve clients fairly (SolcWorkerPool, docs/api.md "Compile"). Any job of a client
   * (a verification, say) goes through the same call.
   */
  compile(input: CompileInput, lane: CompileLane = 'developer', client?: string): Promise<CompileResult> {
    return this.compileNow(input, lane, client);
  }

  private async compileNow(input: CompileInput, lane: CompileLane, client: string | undefined): Promise<CompileResult> {
    const valid = validateCompileInput(input, this.maxSourceBytes);
    const key = this.cacheKeyOf(valid.sources);
    const shape = sourceShapeKey(valid.sources);
    let entry = this.cache.get(key);
    const exhausted = entry ? undefined : this.exhausted.get(shape);
    if (entry) {
      this.cacheHits += 1;
    } else if (exhausted && (exhausted.lane === 'developer' || lane === 'anonymous')) {
      // It ran out of time or memory in this lane (or in the roomier one) a moment ago: not again.
      this.exhaustedHits += 1;
      entry = exhausted.error;
    } else {
      const flightKey = `${lane}:${key}`;
      let running = this.inFlight.get(flightKey);
      if (!running) {
        // Taken before anything is awaited: a refusal then concerns this caller alone, never one
        // that joined this compile meanwhile.
        const release = this.claimFor(client, lane);
        // Then the slot held across instances (REDIS_URL), inside the shared run: a refusal there
        // goes to this caller, and whoever joined meanwhile tries again on its own.
        running = this.claimShared(client, lane)
          .then(async (releaseShared) => {
            try {
              return await this.compileUncached(valid.sources, key, lane, shape, client);
            } finally {
              // Awaited: the caller is answered only once its slot is free on every instance.
              await releaseShared();
            }
          })
          .finally(() => {
            this.inFlight.delete(flightKey);
            release();
          });
        this.inFlight.set(flightKey, running);
        try {
          entry = await running;
        } catch (e) {
          throw e instanceof SharedSlotRefused ? e.refusal : e;
        }
      } else {
        try {
          entry = await running;
        } catch (e) {
          if (e instanceof SharedSlotRefused) return this.compileNow(input, lane, client);
          throw e;
        }
      }
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

  /**
   * Runs a caller's own standard-JSON input as it is (verification, docs/api.md "Verification")
   * with the installed solc `release` (default: the portal's) in `lane`, with that lane's time and
   * memory bounds, as `client` (one compile of theirs at a time, whatever the release: 429
   * RATE_LIMITED otherwise); nothing is cached. Imports the input does not carry are refused.
   * Resolves with solc's raw output and its long version. A release that is not installed: 400
   * VALIDATION_FAILED.
   */
  async compileStandardJson(
    standardJson: string,
    lane: CompileLane,
    client?: string,
    release: string = SOLC_RELEASE,
  ): Promise<{ outcome: PoolOutcome; version: string | undefined }> {
    const pool = this.poolOf(lane, release);
    // The same one slot per client as compile(), and the pool's per-client turns.
    const releaseSlot = this.claimFor(client, lane);
    try {
      const outcome = await pool.run(standardJson, client);
      return { outcome, version: pool.version };
    } finally {
      releaseSlot();
    }
  }

  /**
   * Takes `client`'s one compile slot (the lane's key space is the client's: anonymous callers are
   * address keys, developers ids); 429 RATE_LIMITED with Retry-After (seconds until that compile
   * reaches its time limit at the latest) when the client already has a compile queued or running.
   * Returns the release.
   */
  private claimFor(client: string | undefined, lane: CompileLane): () => void {
    if (client === undefined) return () => undefined;
    const slotKey = `${lane}:${client}`;
    const now = Date.now();
    const held = this.clientCompiles.get(slotKey);
    if (held) {
      const seconds = Math.max(1, Math.ceil((held.since + held.timeoutMs - now) / 1000));
      throw new AppError(
        'RATE_LIMITED',
        `A compile of yours is already queued or running; one at a time (retry in ${seconds} s)`,
        { retryAfterSeconds: seconds },
        { 'Retry-After': String(seconds) },
      );
    }
    const mine = { since: now, timeoutMs: this.poolOf(lane).timeoutMs };
    this.clientCompiles.set(slotKey, mine);
    return () => {
      if (this.clientCompiles.get(slotKey) === mine) this.clientCompiles.delete(slotKey);
    };
  }

  /**
   * `client`'s compile slot across instances (sharedSlots); 429 RATE_LIMITED when another instance
   * holds it, with Retry-After the lane's time limit (when that compile began is not known here).
   */
  private async claimShared(client: string | undefined, lane: CompileLane): Promise<() => Promise<void>> {
    if (client === undefined || !this.sharedSlots) return async () => undefined;
    const release = await this.sharedSlots.acquire(`${lane}:${client}`);
    if (release) return release;
    const seconds = Math.max(1, Math.ceil(this.poolOf(lane).timeoutMs / 1000));
    throw new SharedSlotRefused(
      new AppError(
        'RATE_LIMITED',
        `A compile of yours is already queued or running; one at a time (retry in ${seconds} s)`,
        { retryAfterSeconds: seconds },
        { 'Retry-After': String(seconds) },
      ),
    );
  }

  /**
   * The pool of `lane` for `release`: the portal's release has its two pools from the start (their
   * workers start on first use); another installed release gets its pool of the lane on its first
   * compile, with the lane's size, bounds and fairness, its workers stopped when idle.
   */
  private poolOf(lane: CompileLane, release: string = SOLC_RELEASE): SolcWorkerPool {
    if (release === SOLC_RELEASE) return lane === 'anonymous' ? this.anonymousPool : this.pool;
    const key = `${release}:${lane}`;
    let pool = this.releasePools.get(key);
    if (!pool) {
      if (this.closed) throw new AppError('SERVICE_UNAVAILABLE', 'The compiler is shut down');
      const solcPackageJson = solcPackageOf(release);
      if (!solcPackageJson) throw new AppError('VALIDATION_FAILED', `solc ${release.slice(0, 40)} is not installed`);
      pool = new SolcWorkerPool({ ...this.laneOptions[lane], solcPackageJson, idleMs: this.releaseIdleMs });
      this.releasePools.set(key, pool);
    }
    return pool;
  }

  /** Terminates the workers; later compiles fail with 503 SERVICE_UNAVAILABLE. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.pool, this.anonymousPool, ...this.releasePools.values()].map((p) => p.close()));
  }

  /**
   * Runs one compile and decides what may be cached: successes, solc's own errors and solc crashes
   * (all reproduce on the same input, and caching crashes stops one input from killing workers over
   * and over). Not cached: timeouts (they depend on load), internal compiler errors (they may come
   * from a worker's state), refused imports and anything thrown before solc runs (cheap to redo).
   */
  private async compileUncached(
    sources: SortedSources,
    key: string,
    lane: CompileLane,
    shape: string,
    client: string | undefined,
  ): Promise<CachedCompile> {
    const stored = await this.store?.get(key);
    if (stored) {
      this.storeHits += 1;
      this.storedVersion ??= stored.version;
      // Outputs stored before the ABI limits existed are held to them as well.
      const excess = stored.output.contracts.map((c) => [c.name, abiExcess(c.abi)] as const).find(([, e]) => e);
      const entry: CachedCompile = excess
        ? this.failure(tooComplex(excess[0], excess[1]!))
        : { ok: true, output: stored.output };
      this.cache.set(key, entry);
      return entry;
    }
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
    const outcome = await this.poolOf(lane).run(standardJson, client);
    this.logger?.debug(
      { ms: Date.now() - started, kind: outcome.kind, files: sources.length },
      'solc compile finished',
    );

    let entry: CachedCompile;
    let cacheable = true;
    if (outcome.kind === 'preempted') {
      // Stopped for another client's compile: it says nothing about the source; not remembered.
      const seconds = Math.round(outcome.ranMs / 100) / 10;
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `The compiler is busy: this compile was stopped after ${seconds} s so that other callers could compile; try again shortly`,
        undefined,
        { 'Retry-After': '5' },
      );
    }
    if (outcome.kind === 'timed-out') {
      const seconds = Math.round(outcome.timeoutMs / 100) / 10;
      entry = this.failure(compilationFailed([serviceDiagnostic(`compilation timed out after ${seconds} s`)]));
      cacheable = false;
      this.exhausted.set(shape, { lane, error: entry });
    } else if (outcome.kind === 'crashed') {
      entry = this.failure(
        compilationFailed([serviceDiagnostic(`the compiler crashed on this input (${outcome.reason})`)]),
      );
      this.exhausted.set(shape, { lane, error: entry });
    } else {
      cacheable = !outcome.internalError;
      // solc ran out of its bounded memory: as good as a timeout for this source.
      const outOfMemory = outcome.internalError && outcome.output.includes('bad_alloc');
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
        // An ABI over the limits is as reproducible as solc's own errors: cached like them.
        if (!(e instanceof AppError) || (e.code !== 'COMPILATION_FAILED' && e.code !== 'CONTRACT_TOO_COMPLEX')) throw e;
        entry = this.failure(e);
      }
      if (outOfMemory) this.exhausted.set(shape, { lane, error: entry });
    }
    if (cacheable) this.cache.set(key, entry);
    const version = this.pool.version;
    // Only developers' compiles (and deployments) go to disk: anonymous ones could churn it.
    if (entry.ok && cacheable && version && lane === 'developer') {
      void this.store?.put(key, { version, output: entry.output });
    }
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
