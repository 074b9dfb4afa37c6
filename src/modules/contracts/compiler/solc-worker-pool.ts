import { existsSync } from 'node:fs';
import { LRUCache } from 'lru-cache';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError } from '../../../kernel/errors/app-error';
import type { Logger } from '../../../kernel/logger';
import type { CompileRequest, SolcWorkerData, WorkerMessage } from './solc-worker-protocol';

/** How one compile ended, as far as the pool can tell. */
export type PoolOutcome =
  | {
      kind: 'compiled';
      output: string;
      refusedImports: string[];
      /** solc reported an internal error; the worker was replaced and the outcome may not be reproducible. */
      internalError: boolean;
    }
  | { kind: 'crashed'; reason: string }
  | { kind: 'timed-out'; timeoutMs: number }
  /** Stopped after `ranMs` so that another client's waiting compile could run (see `minSliceMs`). */
  | { kind: 'preempted'; ranMs: number };

export interface SolcWorkerPoolOptions {
  /** Worker threads, each holding its own soljson (~100-300 MB once warm). */
  size: number;
  /** A compile running longer is abandoned: its worker is terminated and replaced. */
  timeoutMs: number;
  /** Compiles allowed to wait for a worker; beyond it, 503 SERVICE_UNAVAILABLE. */
  maxQueued: number;
  /** Bound of solc's wasm memory per worker (default MAX_WORKER_HEAP_BYTES). */
  maxHeapBytes?: number;
  /**
   * Fairness between clients (docs/api.md, "Compile"): a compile of a client that has run this long
   * may be stopped (outcome `preempted`) when another client's compile has waited `patienceMs` for
   * a worker. Undefined: never preempted.
   */
  minSliceMs?: number;
  /** How long a waiting compile lets running ones finish before one is stopped for it (default 1 s). */
  patienceMs?: number;
  /**
   * How long a client whose compile timed out, crashed or was stopped is served after the others
   * (default 10 min): its compiles wait behind any other client's and are stopped first.
   */
  strikeMs?: number;
  /** package.json of the solc release the workers load (default: the `solc` package). */
  solcPackageJson?: string;
  /**
   * Every worker is stopped once the pool has had nothing to do for this long (it starts again on
   * the next compile); undefined: workers stay. For releases compiled with now and then.
   */
  idleMs?: number;
  logger?: Logger;
}

/** Counters for tests and metrics. */
export interface SolcWorkerPoolStats {
  workersStarted: number;
  workersReplaced: number;
  compilesDispatched: number;
  crashes: number;
  timeouts: number;
  /** Compiles stopped so that another client's could run. */
  preemptions: number;
  /** Worker threads alive now (starting, idle or busy). */
  workers: number;
  /** Times every worker was stopped because the pool stayed idle (`idleMs`). */
  idleStops: number;
}

/** Bound of solc's wasm memory per worker: growth past it fails the compile as a crash (SECURITY.md). */
export const MAX_WORKER_HEAP_BYTES = 768 * 1024 * 1024;
/** The wasm heap never shrinks; a worker whose heap grew past this is replaced after its compile. */
const RETIRE_WORKER_HEAP_BYTES = 512 * 1024 * 1024;
/** V8 heap bound per worker (solc's wasm memory is outside it); exceeding it ends the worker, seen as a crash. */
export const WORKER_OLD_GENERATION_MB = 256;

/** Clients remembered as having exhausted or been stopped (a bound on the strike memory). */
const MAX_STRUCK_CLIENTS = 10_000;

interface Job {
  id: number;
  input: string;
  /** Whose compile it is (an address key or a developer); undefined for the service's own. */
  client?: string;
  queuedAt: number;
  settle(outcome: PoolOutcome): void;
  fail(error: AppError): void;
}

interface PoolSlot {
  worker: Worker;
  state: 'starting' | 'idle' | 'busy';
  job?: Job;
  /** When the running job was dispatched. */
  startedAt?: number;
  timer?: NodeJS.Timeout;
  /** Settles when soljson is loaded (rejects if the worker dies first); always has a catch attached. */
  ready: Promise<void>;
  failStart(error: AppError): void;
}

/**
 * The built worker (dist/.../solc-worker.mjs, emitted by tsc) when it exists; otherwise, running
 * from the sources under ts-jest, the .mts file itself, which Node 24 runs with its built-in type
 * stripping. An ES module either way, so Node never has to guess the module type.
 */
function workerEntry(): string {
  const built = path.join(__dirname, 'solc-worker.mjs');
  return existsSync(built) ? built : path.join(__dirname, 'solc-worker.mts');
}

/**
 * A small pool of worker threads running solc (an inline compile blocks the event loop for
 * seconds). Workers start on first use, take one compile at a time, and are replaced when solc
 * crashes (a crashed emscripten module fails every later call) or a compile times out.
 */
export class SolcWorkerPool {
  private readonly slots = new Set<PoolSlot>();
  private readonly queue: Job[] = [];
  private nextJobId = 1;
  private closed = false;
  private solcVersion: string | undefined;
  /** Clients whose last compile timed out, crashed or was stopped: served after the others for a while. */
  private readonly struck: LRUCache<string, true>;
  private preemptTimer?: NodeJS.Timeout;
  private idleTimer?: NodeJS.Timeout;
  private readonly counters: Omit<SolcWorkerPoolStats, 'workers'> = {
    workersStarted: 0,
    workersReplaced: 0,
    compilesDispatched: 0,
    crashes: 0,
    timeouts: 0,
    preemptions: 0,
    idleStops: 0,
  };

  constructor(private readonly opts: SolcWorkerPoolOptions) {
    this.struck = new LRUCache({ max: MAX_STRUCK_CLIENTS, ttl: opts.strikeMs ?? 10 * 60_000 });
  }

  /** Compiles running and waiting for a worker now. */
  get load(): { running: number; waiting: number } {
    return { running: [...this.slots].filter((s) => s.job).length, waiting: this.queue.length };
  }

  /** The time limit of one compile. */
  get timeoutMs(): number {
    return this.opts.timeoutMs;
  }

  get stats(): SolcWorkerPoolStats {
    return { ...this.counters, workers: this.slots.size };
  }

  /** solc's long version (e.g. `0.8.20+commit.a1b79de6.Emscripten.clang`) once a worker has started. */
  get version(): string | undefined {
    return this.solcVersion;
  }

  /**
   * Runs one standard-JSON compile on the next free worker; `client` (an address key or developer)
   * takes part in the fairness between clients (`minSliceMs`).
   */
  run(input: string, client?: string): Promise<PoolOutcome> {
    if (this.closed) return Promise.reject(new AppError('SERVICE_UNAVAILABLE', 'The compiler is shut down'));
    if (this.queue.length >= this.opts.maxQueued) {
      return Promise.reject(
        new AppError(
          'SERVICE_UNAVAILABLE',
          'The compiler is busy; try again shortly',
          { queued: this.queue.length },
          { 'Retry-After': '5' },
        ),
      );
    }
    return new Promise<PoolOutcome>((resolve, reject) => {
      this.queue.push({ id: this.nextJobId++, input, client, queuedAt: Date.now(), settle: resolve, fail: reject });
      this.pump();
    });
  }

  /** Starts a worker if none runs yet and waits until one has loaded soljson. */
  async warmUp(): Promise<void> {
    if (this.closed) throw new AppError('SERVICE_UNAVAILABLE', 'The compiler is shut down');
    if ([...this.slots].some((s) => s.state !== 'starting')) return;
    const slot = this.slots.values().next().value ?? this.spawn();
    if (!slot) throw new AppError('INTERNAL', 'The Solidity compiler could not be started');
    await slot.ready;
  }

  /** Terminates every worker; waiting and running compiles fail with SERVICE_UNAVAILABLE. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.preemptTimer);
    clearTimeout(this.idleTimer);
    const shutDown = new AppError('SERVICE_UNAVAILABLE', 'The compiler is shutting down');
    for (const job of this.queue.splice(0)) job.fail(shutDown);
    const terminations: Array<Promise<number>> = [];
    for (const slot of [...this.slots]) {
      slot.job?.fail(shutDown);
      terminations.push(this.discard(slot));
    }
    await Promise.all(terminations);
  }

  /**
   * Gives waiting jobs to idle workers (at most `size` compile at once), starts workers (up to
   * `size`) for the rest, lets a spare worker go once nothing waits, then sees to fairness.
   */
  private pump(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (this.queue.length === 0 || this.busy() >= this.opts.size) break;
      if (slot.state === 'idle') this.dispatch(slot, this.takeNext());
    }
    while (this.queue.length > this.starting() && this.slots.size < this.opts.size) {
      if (!this.spawn()) break;
    }
    if (this.queue.length === 0 && this.slots.size > this.opts.size) {
      const spare = [...this.slots].find((s) => s.state === 'idle');
      if (spare) void this.discard(spare);
    }
    this.reviewPreemption();
    this.reviewIdle();
  }

  /**
   * With `idleMs`: once every worker is idle and nothing waits, a timer stops them all after
   * `idleMs` (a soljson holds 100-300 MB); any work before then cancels it.
   */
  private reviewIdle(): void {
    const idleMs = this.opts.idleMs;
    if (idleMs === undefined) return;
    const quiet = () =>
      !this.closed && this.queue.length === 0 && [...this.slots].every((slot) => slot.state === 'idle');
    if (this.slots.size === 0 || !quiet()) {
      clearTimeout(this.idleTimer);
      this.idleTimer = undefined;
      return;
    }
    if (this.idleTimer) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.slots.size === 0 || !quiet()) return;
      this.counters.idleStops += 1;
      this.opts.logger?.info({ workers: this.slots.size, idleMs }, 'solc workers stopped after staying idle');
      for (const slot of [...this.slots]) void this.discard(slot);
    }, idleMs);
    this.idleTimer.unref();
  }

  private busy(): number {
    return [...this.slots].filter((s) => s.state === 'busy').length;
  }

  private starting(): number {
    return [...this.slots].filter((s) => s.state === 'starting').length;
  }

  /** A job of a struck client: it waits behind the others and is stopped first. */
  private isStruck(job: Job): boolean {
    return job.client !== undefined && this.struck.has(job.client);
  }

  private strike(job: Job | undefined): void {
    if (job?.client !== undefined) this.struck.set(job.client, true);
  }

  /**
   * The next job to run: jobs of clients in good standing before struck ones; among them the
   * oldest, unless the oldest has waited longer than `patienceMs` (the lane is overloaded): then the
   * newest, so that a compile arriving behind a crowd of pathological ones is served at the next
   * free worker instead of after all of them (adaptive LIFO). Struck jobs run oldest first.
   */
  private takeNext(): Job {
    const good = this.queue.filter((j) => !this.isStruck(j));
    let chosen = this.queue[0]!;
    if (good.length > 0) {
      const overloaded = Date.now() - good[0]!.queuedAt > (this.opts.patienceMs ?? 1_000);
      chosen = overloaded ? good[good.length - 1]! : good[0]!;
    }
    this.queue.splice(this.queue.indexOf(chosen), 1);
    return chosen;
  }

  /**
   * Fairness between clients: while a client's compile (in good standing) waits for a worker and no
   * worker is starting for it, one running compile of another client is stopped once the waiter
   * has waited `patienceMs`: a struck client's at once, else the one running longest once it has
   * run `minSliceMs`. Its worker is replaced and the waiter takes it when soljson has loaded. So an
   * honest compile waits at most about patience + slice + a worker's start behind any number of
   * struck clients' sources (docs/api.md, "Compile" gives the worst case).
   */
  private reviewPreemption(): void {
    clearTimeout(this.preemptTimer);
    this.preemptTimer = undefined;
    const slice = this.opts.minSliceMs;
    if (this.closed || slice === undefined) return;
    const waiters = this.queue.filter((j) => j.client !== undefined && !this.isStruck(j));
    // Workers idle or starting take that many waiters without stopping anyone.
    if (waiters.length <= Math.max(0, this.opts.size - this.busy())) return;
    // One spare worker beyond `size` loads soljson meanwhile, so that the waiter runs the moment a
    // compile is stopped instead of a worker's start (about 1 s) later.
    if (this.slots.size < this.opts.size + 1) this.spawn();
    const oldestWait = Math.min(...waiters.map((j) => j.queuedAt));
    let victim: PoolSlot | undefined;
    let victimDue = Infinity;
    for (const slot of this.slots) {
      const job = slot.job;
      if (slot.state !== 'busy' || !job || slot.startedAt === undefined) continue;
      const due = this.isStruck(job) ? slot.startedAt : slot.startedAt + slice;
      if (due < victimDue) [victim, victimDue] = [slot, due];
    }
    if (!victim) return;
    const now = Date.now();
    const at = Math.max(victimDue, oldestWait + (this.opts.patienceMs ?? 1_000));
    if (at > now) {
      this.preemptTimer = setTimeout(() => this.reviewPreemption(), at - now);
      this.preemptTimer.unref();
      return;
    }
    const ranMs = now - (victim.startedAt ?? now);
    const job = this.finishJob(victim);
    this.counters.preemptions += 1;
    this.strike(job);
    this.opts.logger?.info({ ranMs }, 'solc compile stopped so that another client could compile');
    job?.settle({ kind: 'preempted', ranMs });
    this.replace(victim);
  }

  /** Nothing can compile if workers cannot start: fail the waiting jobs instead of retrying forever. */
  private startFailed(reason: string): void {
    this.opts.logger?.error({ reason }, 'solc worker failed to start');
    if (this.slots.size > 0) return;
    const failure = new AppError('INTERNAL', 'The Solidity compiler could not be started');
    for (const job of this.queue.splice(0)) job.fail(failure);
  }

  /** Starts a worker; undefined when even creating the thread failed. */
  private spawn(): PoolSlot | undefined {
    const data: SolcWorkerData = {
      solcPackageJson: this.opts.solcPackageJson ?? require.resolve('solc/package.json'),
      maxHeapBytes: this.opts.maxHeapBytes ?? MAX_WORKER_HEAP_BYTES,
    };
    let worker: Worker;
    try {
      worker = new Worker(workerEntry(), {
        workerData: data,
        resourceLimits: { maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB },
      });
    } catch (e) {
      this.startFailed(e instanceof Error ? e.message : String(e));
      return undefined;
    }
    let markReady!: () => void;
    let failStart!: (error: AppError) => void;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failStart = reject;
    });
    ready.catch(() => undefined); // handled where it happens; warmUp() callers still see the rejection
    const slot: PoolSlot = { worker, state: 'starting', ready, failStart };
    this.slots.add(slot);
    this.counters.workersStarted += 1;

    worker.on('message', (message: WorkerMessage) => {
      if (!this.slots.has(slot)) return; // a late message from a worker already given up
      if (message.type === 'ready') {
        this.solcVersion = message.version;
        slot.state = 'idle';
        worker.unref(); // an idle worker must not keep the process alive
        markReady();
        this.pump();
      } else if (message.type === 'compiled') {
        const job = this.finishJob(slot);
        job?.settle({
          kind: 'compiled',
          output: message.output,
          refusedImports: message.refusedImports,
          internalError: message.internalError,
        });
        if (message.internalError || message.heapBytes > RETIRE_WORKER_HEAP_BYTES) {
          this.opts.logger?.warn(
            { internalError: message.internalError, heapBytes: message.heapBytes },
            'solc worker retired after an internal compiler error or heap growth',
          );
          this.replace(slot);
        } else {
          slot.state = 'idle';
          worker.unref();
          this.pump();
        }
      } else {
        this.counters.crashes += 1;
        this.opts.logger?.warn({ reason: message.reason }, 'solc crashed on an input; replacing its worker');
        const job = this.finishJob(slot);
        this.strike(job);
        job?.settle({ kind: 'crashed', reason: message.reason });
        this.replace(slot);
      }
    });
    const onDeath = (reason: string) => {
      if (!this.slots.has(slot)) return;
      if (slot.state === 'starting') {
        this.slots.delete(slot);
        failStart(new AppError('INTERNAL', 'The Solidity compiler could not be started'));
        this.startFailed(reason);
        return;
      }
      this.counters.crashes += 1;
      this.opts.logger?.warn({ reason }, 'solc worker died; replacing it');
      const job = this.finishJob(slot);
      this.strike(job);
      job?.settle({ kind: 'crashed', reason });
      this.replace(slot);
    };
    worker.on('error', (e: Error) => onDeath(`${e.name}: ${e.message}`));
    worker.on('exit', (code) => onDeath(`worker exited with code ${code}`));
    return slot;
  }

  private dispatch(slot: PoolSlot, job: Job): void {
    slot.state = 'busy';
    slot.job = job;
    slot.startedAt = Date.now();
    slot.worker.ref(); // a running compile keeps the process alive until it answers
    this.counters.compilesDispatched += 1;
    slot.timer = setTimeout(() => {
      if (slot.job !== job) return;
      this.counters.timeouts += 1;
      this.opts.logger?.warn({ timeoutMs: this.opts.timeoutMs }, 'solc compile timed out; replacing its worker');
      this.finishJob(slot);
      this.strike(job);
      job.settle({ kind: 'timed-out', timeoutMs: this.opts.timeoutMs });
      this.replace(slot);
    }, this.opts.timeoutMs);
    slot.worker.postMessage({ type: 'compile', id: job.id, input: job.input } satisfies CompileRequest);
  }

  /** Detaches and returns the slot's running job, stopping its timer. */
  private finishJob(slot: PoolSlot): Job | undefined {
    clearTimeout(slot.timer);
    const job = slot.job;
    slot.job = undefined;
    slot.timer = undefined;
    slot.startedAt = undefined;
    return job;
  }

  /** Throws a worker away and starts a fresh one at once, so the next compile finds soljson loaded. */
  private replace(slot: PoolSlot): void {
    void this.discard(slot);
    if (this.closed) return;
    this.counters.workersReplaced += 1;
    this.spawn();
    this.pump();
  }

  private discard(slot: PoolSlot): Promise<number> {
    this.slots.delete(slot);
    clearTimeout(slot.timer);
    if (slot.state === 'starting') slot.failStart(new AppError('SERVICE_UNAVAILABLE', 'The compiler is shutting down'));
    return slot.worker.terminate().catch(() => -1);
  }
}
