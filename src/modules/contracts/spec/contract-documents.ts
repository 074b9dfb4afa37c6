import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { AppError } from '../../../kernel/errors/app-error';
import type { Logger } from '../../../kernel/logger';
import { tooComplex } from '../abi-limits';
import type { DocumentContract, DocumentJob, DocumentKind, DocumentOutcome } from './document-protocol';
import { withJsonText } from '../../../kernel/json-text';

export type { DocumentContract, DocumentKind } from './document-protocol';

/** A built document: its bytes as served, its ETag, and the parsed value GraphQL answers. */
export interface ContractDocument {
  body: Buffer;
  etag: string;
  /**
   * The document as an object (GraphQL's answer), parsed once on first use; the parse (up to ~50 ms
   * for the largest allowed document) ends its turn of the event loop, so that serializing the answer
   * comes in another.
   */
  value(): Promise<object>;
}

export interface ContractDocumentsOptions {
  /** Bytes of cached documents kept, least recently used first out (parsed values counted at 4× their bytes). */
  maxBytes?: number;
  /** A build running longer ends its worker and answers 503 (default 30 s; the largest allowed ABI needs < 1 s). */
  timeoutMs?: number;
  /** Builds allowed to wait for the worker; beyond it, 503 SERVICE_UNAVAILABLE with Retry-After (default 100). */
  maxQueued?: number;
  logger?: Logger;
}

/** Counters for tests and metrics. */
export interface ContractDocumentsStats {
  /** Documents built by the worker (each cache miss of a contract's current version). */
  builds: number;
  hits: number;
}

/** What the cache keeps per (document kind, contract): the version it was built for and the outcome. */
interface Entry {
  version: string;
  outcome: { ok: true; document: ContractDocument } | { ok: false; error: AppError };
}

/** 128 MiB of documents: about 25 of the largest allowed (5 MiB each), thousands of ordinary ones. */
const DEFAULT_MAX_BYTES = 128 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
/** Each waiting build holds its ABI's text (at most 256 KiB once the limits hold). */
const DEFAULT_MAX_QUEUED = 100;
/** The parsed value of a document takes a few times its JSON's bytes of heap. */
const PARSED_FACTOR = 4;
/** V8 heap of the worker: the largest allowed document's objects fit several times. */
const WORKER_OLD_GENERATION_MB = 256;

/**
 * The document worker's entry: the built JavaScript, or under ts-jest the TypeScript source through
 * a transpiling require hook (the worker thread does not share ts-jest's loader).
 */
function workerEntry(): { file: string; eval: boolean } {
  const built = path.join(__dirname, 'document-worker.js');
  if (existsSync(built)) return { file: built, eval: false };
  const source = path.join(__dirname, 'document-worker.ts');
  const hook = `
    const ts = require('typescript');
    const fs = require('node:fs');
    require.extensions['.ts'] = (module, filename) => {
      const out = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
        fileName: filename,
        compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true,
          experimentalDecorators: true, useDefineForClassFields: false },
      });
      module._compile(out.outputText, filename);
    };
    require(${JSON.stringify(source)});
  `;
  return { file: hook, eval: true };
}

interface Pending {
  job: DocumentJob;
  resolve(outcome: DocumentOutcome): void;
  reject(error: AppError): void;
}

/**
 * The per-contract API documents (docs/api.md, "Contracts"), built once per contract version in a
 * worker thread and kept in a bounded LRU cache with their ETag. A version is what the document
 * shows besides the ABI (name, network, address): a deployment that gives the contract its address
 * makes a new document. An ABI over the limits (stored before they existed) is refused, and the
 * refusal cached alike.
 */
export class ContractDocuments {
  private readonly cache: LRUCache<string, Entry>;
  private readonly inFlight = new Map<string, Promise<Entry>>();
  private readonly queue: Pending[] = [];
  private worker?: Worker;
  private running?: Pending & { timer: NodeJS.Timeout };
  private nextJobId = 1;
  private closed = false;
  private readonly counters: ContractDocumentsStats = { builds: 0, hits: 0 };

  constructor(private readonly opts: ContractDocumentsOptions = {}) {
    this.cache = new LRUCache<string, Entry>({
      maxSize: opts.maxBytes ?? DEFAULT_MAX_BYTES,
      sizeCalculation: (e) => (e.outcome.ok ? e.outcome.document.body.length * (1 + PARSED_FACTOR) : 1) || 1,
    });
  }

  get stats(): ContractDocumentsStats {
    return { ...this.counters };
  }

  /**
   * The `kind` document of `contract`, built from `abiJson()` (the ABI's JSON text, read only when
   * the cache has no document for this version); 422 CONTRACT_TOO_COMPLEX for an ABI over the limits.
   */
  async get(kind: DocumentKind, contract: DocumentContract, abiJson: () => Promise<string>): Promise<ContractDocument> {
    const key = `${kind}:${contract.id}`;
    const version = JSON.stringify([contract.name, contract.network, contract.address, contract.servers]);
    const cached = this.cache.get(key);
    let entry: Entry;
    if (cached?.version === version) {
      this.counters.hits += 1;
      entry = cached;
    } else {
      const flightKey = `${key}:${version}`;
      let running = this.inFlight.get(flightKey);
      if (!running) {
        running = this.build(kind, contract, version, abiJson).finally(() => this.inFlight.delete(flightKey));
        this.inFlight.set(flightKey, running);
      }
      entry = await running;
    }
    if (!entry.outcome.ok) {
      const e = entry.outcome.error;
      throw new AppError(e.code, e.message, structuredClone(e.details));
    }
    return entry.outcome.document;
  }

  /** Ends the worker; waiting builds fail with 503. */
  async close(): Promise<void> {
    this.closed = true;
    const shutDown = new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down');
    for (const p of this.queue.splice(0)) p.reject(shutDown);
    this.running?.reject(shutDown);
    await this.stopWorker();
  }

  private async build(
    kind: DocumentKind,
    contract: DocumentContract,
    version: string,
    abiJson: () => Promise<string>,
  ): Promise<Entry> {
    const job: DocumentJob = { id: this.nextJobId++, kind, contract, abiJson: await abiJson() };
    const outcome = await this.run(job);
    this.counters.builds += 1;
    let entry: Entry;
    if (outcome.ok) {
      const body = Buffer.from(outcome.body.buffer, outcome.body.byteOffset, outcome.body.byteLength);
      let parsed: Promise<object> | undefined;
      const document: ContractDocument = {
        body,
        etag: outcome.etag,
        value: () =>
          (parsed ??= new Promise((resolve) => {
            // Its JSON is the body itself: the GraphQL face writes the body rather than serialise it again.
            const value = withJsonText(JSON.parse(body.toString('utf8')) as object, body);
            setImmediate(() => resolve(value));
          })),
      };
      entry = { version, outcome: { ok: true, document } };
    } else if (outcome.excess) {
      entry = { version, outcome: { ok: false, error: tooComplex(contract.name, outcome.excess) } };
    } else {
      this.opts.logger?.error({ contractId: contract.id, kind, reason: outcome.error }, 'contract document not built');
      throw new AppError('INTERNAL', 'The contract document could not be built');
    }
    this.cache.set(`${kind}:${contract.id}`, entry);
    return entry;
  }

  private run(job: DocumentJob): Promise<DocumentOutcome> {
    if (this.closed) return Promise.reject(new AppError('SERVICE_UNAVAILABLE', 'The service is shutting down'));
    if (this.queue.length >= (this.opts.maxQueued ?? DEFAULT_MAX_QUEUED)) {
      return Promise.reject(
        new AppError(
          'SERVICE_UNAVAILABLE',
          'Contract documents are being built; try again shortly',
          {},
          {
            'Retry-After': '5',
          },
        ),
      );
    }
    return new Promise<DocumentOutcome>((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.pump();
    });
  }

  /** Hands the next job to the worker (one at a time; documents are rare once cached). */
  private pump(): void {
    if (this.running || this.closed) return;
    const next = this.queue.shift();
    if (!next) {
      this.worker?.unref();
      return;
    }
    const worker = this.startedWorker();
    worker.ref();
    const timer = setTimeout(() => {
      this.opts.logger?.warn({ contractId: next.job.contract.id }, 'contract document build timed out');
      this.running = undefined;
      next.reject(
        new AppError('SERVICE_UNAVAILABLE', 'The contract document took too long to build', {}, { 'Retry-After': '5' }),
      );
      void this.stopWorker().then(() => this.pump());
    }, this.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    this.running = { ...next, timer };
    worker.postMessage(next.job);
  }

  private startedWorker(): Worker {
    if (this.worker) return this.worker;
    const entry = workerEntry();
    const worker = new Worker(entry.file, {
      eval: entry.eval,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB },
    });
    worker.on('message', (outcome: DocumentOutcome) => {
      const running = this.running;
      if (this.worker !== worker || running?.job.id !== outcome.id) return;
      clearTimeout(running.timer);
      this.running = undefined;
      running.resolve(outcome);
      this.pump();
    });
    const gone = (reason: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const running = this.running;
      this.running = undefined;
      if (running) {
        clearTimeout(running.timer);
        this.opts.logger?.error({ contractId: running.job.contract.id, reason }, 'contract document worker ended');
        running.reject(new AppError('INTERNAL', 'The contract document could not be built'));
      }
      this.pump();
    };
    worker.on('error', (e) => gone(e.message));
    worker.on('exit', (code) => gone(`exit ${code}`));
    this.worker = worker;
    return worker;
  }

  private async stopWorker(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
