import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Kind, visit, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { AppError } from '../kernel/errors/app-error';
import type {
  OverlapErrorData,
  OverlapRequest,
  OverlapWorkerData,
  OverlapWorkerMessage,
} from './overlap-worker-protocol';

/**
 * graphql-js's overlap rule (OverlappingFieldsCanBeMergedRule) compares every two fields of one
 * response name in a selection set (fragments included), and for two fields with selections, their
 * selections again: quadratic, and one pass of it cannot be cut into turns. Its work is estimated
 * here, in one linear walk: for each selection set, every two fields of one response name (through
 * inline and named fragments) count as many units as the larger of them has nodes beneath it, and
 * every two fragment spreads one unit. A unit took about 7 µs of graphql-js here (35 µs under the
 * tests), whether the two fields conflict or not. A document whose work is at most
 * OVERLAP_INLINE_MAX_WORK runs the rule inline; any other runs it in the overlap worker.
 */
export const OVERLAP_INLINE_MAX_WORK = 100;
/** How long the overlap worker may check one document; past it the document is refused (docs/api.md, "GraphQL specifics"). */
export const OVERLAP_TIME_LIMIT_MS = 2_000;
/** Documents that may wait for the overlap worker; beyond, SERVICE_UNAVAILABLE (docs/api.md, "GraphQL specifics"). */
export const MAX_OVERLAP_QUEUED = 4;
/**
 * Documents of one client (its address) that may wait for the overlap worker: one client sending
 * heavy documents takes one place in the queue, not all of them (docs/api.md, "GraphQL specifics").
 */
export const MAX_OVERLAP_QUEUED_PER_CLIENT = 1;
/** V8 heap bound of the overlap worker: a document needing more ends it, seen as too costly. */
const OVERLAP_WORKER_HEAP_MB = 128;

interface Groups {
  /** Fields by response name: how many, and the most nodes beneath one of them (itself included). */
  names: Map<string, { count: number; size: number }>;
  /** Named fragments spread here (through inline fragments too, not through named ones). */
  spreads: Set<string>;
  /** Nodes in the selection set, each named fragment followed once. */
  size: number;
}

/**
 * The overlap rule's work on a document, in the units of OVERLAP_INLINE_MAX_WORK (see there). As
 * graphql-js does, a selection set takes in the fields of its inline fragments and of each named
 * fragment it reaches, once each whatever the number of spreads, and compares two fragments of
 * distinct names.
 */
export function overlapWork(document: DocumentNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const memo = new Map<SelectionSetNode, Groups>();
  const inProgress = new Set<SelectionSetNode>();
  const empty: Groups = { names: new Map(), spreads: new Set(), size: 0 };
  const groupsOf = (set: SelectionSetNode | undefined): Groups => {
    if (!set) return empty;
    const known = memo.get(set);
    if (known) return known;
    // A fragment cycle (refused by validation before the overlap rule) counts nothing the second time.
    if (inProgress.has(set)) return empty;
    inProgress.add(set);
    const groups: Groups = { names: new Map(), spreads: new Set(), size: 0 };
    const add = (name: string, count: number, size: number) => {
      const g = groups.names.get(name);
      if (g) {
        g.count += count;
        g.size = Math.max(g.size, size);
      } else groups.names.set(name, { count, size });
    };
    const merge = (inner: Groups) => {
      for (const [name, g] of inner.names) add(name, g.count, g.size);
      groups.size += inner.size;
    };
    const followed = new Set<string>();
    const collect = (selections: SelectionSetNode['selections']) => {
      for (const selection of selections) {
        if (selection.kind === Kind.FIELD) {
          const size = 1 + groupsOf(selection.selectionSet).size;
          add(selection.alias?.value ?? selection.name.value, 1, size);
          groups.size += size;
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          collect(selection.selectionSet.selections);
        } else {
          const name = selection.name.value;
          groups.spreads.add(name);
          if (followed.has(name)) continue;
          followed.add(name);
          const inner = groupsOf(fragments.get(name)?.selectionSet);
          merge(inner);
          // The fragments it spreads are reached through it, once each.
          for (const n of inner.spreads) followed.add(n);
        }
      }
    };
    collect(set.selections);
    inProgress.delete(set);
    memo.set(set, groups);
    return groups;
  };
  let work = 0;
  visit(document, {
    SelectionSet(set) {
      const groups = groupsOf(set);
      const spreads = groups.spreads.size;
      work += (spreads * (spreads - 1)) / 2;
      for (const g of groups.names.values()) work += ((g.count * (g.count - 1)) / 2) * g.size;
    },
  });
  return work;
}

/** How one check ended. */
export type OverlapOutcome = { kind: 'checked'; errors: OverlapErrorData[] } | { kind: 'too-costly' };

interface Job {
  id: number;
  source: string;
  /** Who sent the document (its client address), when known. */
  client?: string;
  keep?: number[];
  settle(outcome: OverlapOutcome): void;
  fail(error: AppError): void;
}

/**
 * The built worker (dist/.../overlap-worker.mjs) when it exists; otherwise, under ts-jest, the
 * .mts file itself, which Node 24 runs with its built-in type stripping.
 */
function workerEntry(): string {
  const built = path.join(__dirname, 'overlap-worker.mjs');
  return existsSync(built) ? built : path.join(__dirname, 'overlap-worker.mts');
}

export interface OverlapCheckerOptions {
  /** The schema's SDL, read when the first worker starts. */
  sdl: () => string;
  maxTokens: number;
  timeoutMs?: number;
  maxQueued?: number;
  maxQueuedPerClient?: number;
}

/**
 * One worker thread running graphql-js's overlap rule, started on first use and kept (unreferenced
 * while idle: it never keeps the process alive). One document at a time, each with a time limit:
 * past it the worker is terminated, a fresh one started, and the document is `too-costly`. At most
 * `maxQueued` documents wait, at most `maxQueuedPerClient` of one client; beyond, `check` rejects
 * with SERVICE_UNAVAILABLE.
 */
export class OverlapChecker {
  private worker?: Worker;
  private state: 'starting' | 'idle' | 'busy' = 'starting';
  private running?: Job;
  private timer?: NodeJS.Timeout;
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private sdl?: string;
  readonly stats = { workersStarted: 0, checks: 0, timeouts: 0, crashes: 0 };

  constructor(private readonly opts: OverlapCheckerOptions) {}

  get timeoutMs(): number {
    return this.opts.timeoutMs ?? OVERLAP_TIME_LIMIT_MS;
  }

  /**
   * The overlap rule's errors over `source` (a document that parses), only its definitions of
   * indexes `keep` if given (`checkedPart`), or `too-costly`. `client`: who sent it (its address).
   */
  check(source: string, keep?: number[], client?: string): Promise<OverlapOutcome> {
    if (this.closed) return Promise.reject(new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down'));
    const busy = (message: string) =>
      Promise.reject(new AppError('SERVICE_UNAVAILABLE', message, undefined, { 'Retry-After': '2' }));
    if (this.queue.length >= (this.opts.maxQueued ?? MAX_OVERLAP_QUEUED)) {
      return busy('Too many large GraphQL documents are being validated; try again shortly');
    }
    const perClient = this.opts.maxQueuedPerClient ?? MAX_OVERLAP_QUEUED_PER_CLIENT;
    if (client !== undefined && this.queue.filter((j) => j.client === client).length >= perClient) {
      return busy('A large GraphQL document of this client is already waiting to be validated; try again shortly');
    }
    return new Promise<OverlapOutcome>((settle, fail) => {
      this.queue.push({ id: this.nextId++, source, keep, client, settle, fail });
      this.pump();
    });
  }

  /** Terminates the worker; waiting and running checks fail with SERVICE_UNAVAILABLE. */
  async close(): Promise<void> {
    this.closed = true;
    const shutDown = new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down');
    for (const job of this.queue.splice(0)) job.fail(shutDown);
    this.finish()?.fail(shutDown);
    await this.discard();
  }

  private pump(): void {
    if (this.closed || this.queue.length === 0) return;
    if (!this.worker) {
      this.spawn();
      return;
    }
    if (this.state !== 'idle') return;
    const job = this.queue.shift()!;
    this.state = 'busy';
    this.running = job;
    this.stats.checks += 1;
    this.worker.ref(); // a running check keeps the process alive until it answers
    this.timer = setTimeout(() => {
      if (this.running !== job) return;
      this.stats.timeouts += 1;
      this.replace()?.settle({ kind: 'too-costly' });
    }, this.timeoutMs);
    this.worker.postMessage({ id: job.id, source: job.source, keep: job.keep } satisfies OverlapRequest);
  }

  private spawn(): void {
    this.sdl ??= this.opts.sdl();
    const workerData: OverlapWorkerData = { sdl: this.sdl, maxTokens: this.opts.maxTokens };
    let worker: Worker;
    try {
      worker = new Worker(workerEntry(), {
        workerData,
        resourceLimits: { maxOldGenerationSizeMb: OVERLAP_WORKER_HEAP_MB },
      });
    } catch {
      const failure = new AppError('INTERNAL', 'GraphQL validation could not start');
      for (const job of this.queue.splice(0)) job.fail(failure);
      return;
    }
    this.worker = worker;
    this.state = 'starting';
    this.stats.workersStarted += 1;
    worker.on('message', (message: OverlapWorkerMessage) => {
      if (this.worker !== worker) return; // a late message from a worker already given up
      if (message.type === 'ready') {
        this.state = 'idle';
        worker.unref();
        this.pump();
        return;
      }
      const job = this.finish();
      if (!job) return;
      this.state = 'idle';
      worker.unref();
      if (message.type === 'checked') job.settle({ kind: 'checked', errors: message.errors });
      else job.fail(new AppError('INTERNAL', `GraphQL validation failed: ${message.reason}`));
      this.pump();
    });
    const onDeath = () => {
      if (this.worker !== worker) return;
      this.stats.crashes += 1;
      if (this.state === 'starting') {
        // Nothing can be checked: the waiting documents fail instead of starting workers forever.
        void this.discard();
        const failure = new AppError('INTERNAL', 'GraphQL validation could not start');
        for (const waiting of this.queue.splice(0)) waiting.fail(failure);
        return;
      }
      // Out of its heap on a document: too costly.
      this.replace()?.settle({ kind: 'too-costly' });
    };
    worker.on('error', onDeath);
    worker.on('exit', onDeath);
  }

  /** Detaches the running job, stopping its timer. */
  private finish(): Job | undefined {
    clearTimeout(this.timer);
    this.timer = undefined;
    const job = this.running;
    this.running = undefined;
    return job;
  }

  /** Terminates the worker and starts a fresh one at once; returns the job it was running. */
  private replace(): Job | undefined {
    const job = this.finish();
    void this.discard();
    if (!this.closed) this.spawn();
    return job;
  }

  private discard(): Promise<number> {
    const worker = this.worker;
    this.worker = undefined;
    this.state = 'starting';
    return worker ? worker.terminate().catch(() => -1) : Promise.resolve(0);
  }
}
