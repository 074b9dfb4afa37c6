import {
  createSourceEventStream,
  execute,
  getOperationAST,
  subscribe,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
} from 'graphql';

type Subscribe = (args: ExecutionArgs) => Promise<AsyncGenerator<ExecutionResult> | ExecutionResult>;

/** What a shared stream's results depend on: its document and variables (operation name included). */
export interface SharedKey {
  document: DocumentNode;
  variables: string;
}

/** The streams sharedSubscribe shares: every subscriber of one document and variables is handed the same result objects. */
const sharedStreams = new WeakMap<object, SharedKey>();

/** The document and variables of a shared subscription's stream, whose results are the same objects for all its subscribers. */
export function sharedKeyOf(stream: unknown): SharedKey | undefined {
  return typeof stream === 'object' && stream !== null ? sharedStreams.get(stream) : undefined;
}

/**
 * graphql-js's `subscribe`, except that a subscription to one of `fields` executes each event once
 * per distinct document and variables, however many subscribers share them. For a field of
 * `fields`, every subscriber's feed hands on the same event object and the answer depends on
 * nothing but that event, the document and its variables (not on the subscriber's context):
 * liveBlocks. Each subscriber is handed its own stream, which sharedKeyOf tells apart (over
 * graphql-ws the subscribers of one document and variables are then fanned out from one of them:
 * shared-fan-out.ts); the execution of an event is shared. Documents are told apart by identity
 * (the admission pipeline hands the same DocumentNode for the same text), so a document seen
 * afresh is only shared less, never wrongly.
 */
export function sharedSubscribe(fields: ReadonlySet<string>): Subscribe {
  /** Each event's results by document and variables; dropped with the event once every subscriber has it. */
  const results = new WeakMap<object, WeakMap<DocumentNode, Map<string, Promise<ExecutionResult>>>>();

  const executeOnce = (args: ExecutionArgs, variables: string, event: unknown): Promise<ExecutionResult> => {
    if (typeof event !== 'object' || event === null) return Promise.resolve(execute({ ...args, rootValue: event }));
    let byDocument = results.get(event);
    if (!byDocument) {
      byDocument = new WeakMap();
      results.set(event, byDocument);
    }
    let byVariables = byDocument.get(args.document);
    if (!byVariables) {
      byVariables = new Map();
      byDocument.set(args.document, byVariables);
    }
    let result = byVariables.get(variables);
    if (!result) {
      result = Promise.resolve(execute({ ...args, rootValue: event }));
      byVariables.set(variables, result);
    }
    return result;
  };

  return async (args) => {
    const operation = getOperationAST(args.document, args.operationName);
    const selections = operation?.operation === 'subscription' ? operation.selectionSet.selections : [];
    const only = selections.length === 1 ? selections[0] : undefined;
    if (only?.kind !== 'Field' || !fields.has(only.name.value)) {
      return subscribe(args) as ReturnType<Subscribe>;
    }
    const stream = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in stream)) return stream;
    const variables = `${args.operationName ?? ''}\n${JSON.stringify(args.variableValues ?? null)}`;
    const shared = mapEvents(stream as AsyncIterable<unknown>, (event) => executeOnce(args, variables, event));
    sharedStreams.set(shared, { document: args.document, variables });
    return shared;
  };
}

/**
 * The events of `source`, each as `map` makes it; `return()` ends the source at once, even while
 * a `next()` waits (as graphql-js's own mapping does).
 */
function mapEvents(
  source: AsyncIterable<unknown>,
  map: (event: unknown) => Promise<ExecutionResult>,
): AsyncGenerator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  const end = async (): Promise<IteratorResult<ExecutionResult>> => {
    await iterator.return?.();
    return { value: undefined, done: true };
  };
  const mapped: AsyncGenerator<ExecutionResult> = {
    async next() {
      const r = await iterator.next();
      if (r.done) return { value: undefined, done: true };
      try {
        return { value: await map(r.value), done: false };
      } catch (e) {
        await end().catch(() => undefined);
        throw e;
      }
    },
    return: end,
    async throw(e: unknown) {
      await end();
      throw e;
    },
    [Symbol.asyncIterator]() {
      return mapped;
    },
    async [Symbol.asyncDispose]() {
      await end();
    },
  };
  return mapped;
}
