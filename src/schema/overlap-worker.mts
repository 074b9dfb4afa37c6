/**
 * Worker thread entry: graphql-js's OverlappingFieldsCanBeMergedRule over a document, off the event
 * loop, for OverlapChecker (docs/api.md, "GraphQL specifics"). Its types are erasable: under
 * ts-jest, Node 24 runs this .mts file itself with its built-in type stripping; the build runs
 * tsc's overlap-worker.mjs.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import type {
  OverlapErrorData,
  OverlapRequest,
  OverlapWorkerData,
  OverlapWorkerMessage,
} from './overlap-worker-protocol.js';

type GraphQLModule = typeof import('graphql');

function start(): void {
  const port = parentPort;
  if (!port) throw new Error('overlap-worker must run in a worker thread');
  const { sdl, maxTokens } = workerData as OverlapWorkerData;
  // graphql-js is CommonJS: required, as the service itself loads it.
  const graphql = createRequire(import.meta.url)('graphql') as GraphQLModule;
  // Types only (no resolvers): all the overlap rule reads.
  const schema = graphql.buildSchema(sdl);
  const rules = [graphql.OverlappingFieldsCanBeMergedRule];
  port.postMessage({ type: 'ready' } satisfies OverlapWorkerMessage);

  port.on('message', (request: OverlapRequest) => {
    let message: OverlapWorkerMessage;
    try {
      const parsed = graphql.parse(request.source, { maxTokens });
      const keep = request.keep;
      const document = keep ? { ...parsed, definitions: keep.map((i) => parsed.definitions[i]!) } : parsed;
      const errors: OverlapErrorData[] = graphql
        .validate(schema, document, rules)
        .map((e) => ({ message: e.message, positions: e.positions ? [...e.positions] : undefined }));
      message = { type: 'checked', id: request.id, errors };
    } catch (error) {
      message = { type: 'failed', id: request.id, reason: error instanceof Error ? error.message : String(error) };
    }
    port.postMessage(message);
  });
}

start();
