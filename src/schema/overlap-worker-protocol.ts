/** Messages between OverlapChecker and overlap-worker.mts (types only: the worker imports nothing of the service). */

/** What the checker passes at start. */
export interface OverlapWorkerData {
  /** The schema's SDL (printSchema): the overlap rule needs its types only. */
  sdl: string;
  /** The parser's token limit (MAX_QUERY_TOKENS), the same as the service's. */
  maxTokens: number;
}

/** Checker → worker: a document already admitted up to the overlap rule. */
export interface OverlapRequest {
  id: number;
  source: string;
  /** Indexes of the definitions to check (the operation that runs and what it uses); undefined: all. */
  keep?: number[];
}

/** An error of the overlap rule, as graphql-js reported it: its message and where in the source. */
export interface OverlapErrorData {
  message: string;
  /** Character offsets in the source (GraphQLError.positions); none for "Too many validation errors". */
  positions?: number[];
}

/** Worker → checker. */
export type OverlapWorkerMessage =
  | { type: 'ready' }
  | { type: 'checked'; id: number; errors: OverlapErrorData[] }
  | { type: 'failed'; id: number; reason: string };
