/**
 * Worker thread entry: builds one contract's API document (OpenAPI 3.0.3 or Swagger 2.0) from its
 * ABI's JSON text and answers it serialized, with its ETag. Building a document of the largest
 * allowed ABI takes hundreds of milliseconds of CPU (docs/api.md, "Contracts"): never on the event loop.
 */
import { createHash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { abiExcess } from '../abi-limits';
import { buildContractOpenApi } from './contract-openapi';
import { buildContractSwagger } from './contract-swagger';
import type { DocumentJob, DocumentOutcome } from './document-protocol';

/** A strong validator of the document's bytes: 128 bits of SHA-256, base64url. */
export function etagOf(body: Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
}

/** Builds the document of one job; an ABI over the limits (one stored before them) is refused. */
export function buildDocument(job: DocumentJob): DocumentOutcome {
  const abi: unknown = JSON.parse(job.abiJson);
  const excess = abiExcess(abi);
  if (excess) return { id: job.id, ok: false, excess };
  const input = { ...job.contract, abi: Array.isArray(abi) ? abi : [] };
  const doc = job.kind === 'openapi' ? buildContractOpenApi(input) : buildContractSwagger(input);
  // Its own ArrayBuffer (Buffer.from may slice a shared pool, which must not be transferred).
  const body = new TextEncoder().encode(JSON.stringify(doc));
  return { id: job.id, ok: true, body, etag: etagOf(body) };
}

parentPort?.on('message', (job: DocumentJob) => {
  let outcome: DocumentOutcome;
  try {
    outcome = buildDocument(job);
  } catch (e) {
    outcome = { id: job.id, ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  // The bytes move to the service's thread without a copy.
  const transfer = outcome.ok ? [outcome.body.buffer as ArrayBuffer] : [];
  parentPort!.postMessage(outcome, transfer);
});
