import { EventEmitter, on } from 'node:events';
import {
  GraphQLInt,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
  type DocumentNode,
  type ExecutionResult,
} from 'graphql';
import { sharedSubscribe } from './shared-subscription';

/** A schema with a shared feed (`blocks`) and a per-subscriber one (`private`), counting executions. */
function feedSchema() {
  const bus = new EventEmitter();
  const executed = { number: 0 };
  const Block = new GraphQLObjectType({
    name: 'Block',
    fields: {
      number: {
        type: GraphQLInt,
        resolve: (b: { number: number }) => {
          executed.number++;
          return b.number;
        },
      },
      label: {
        type: GraphQLString,
        args: { prefix: { type: GraphQLString } },
        resolve: (b, a) => `${a.prefix}${b.number}`,
      },
    },
  });
  /** Ended sources; each returns at once, even while a next() waits (as the explorer's feeds do). */
  const ended = { count: 0 };
  const feed = (): AsyncIterableIterator<unknown> => {
    const events = on(bus, 'block');
    const source: AsyncIterableIterator<unknown> = {
      next: async () => {
        const r = await events.next();
        return r.done ? r : { value: (r.value as unknown[])[0], done: false };
      },
      return: async () => {
        ended.count++;
        return events.return!();
      },
      [Symbol.asyncIterator]: () => source,
    };
    return source;
  };
  const subscription = new GraphQLObjectType({
    name: 'Subscription',
    fields: Object.fromEntries(
      ['blocks', 'private'].map((name) => [
        name,
        {
          type: Block,
          args: { prefix: { type: GraphQLString } },
          subscribe: feed,
          resolve: (b: unknown) => b,
        },
      ]),
    ),
  });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLInt } } }),
    subscription,
  });
  return { bus, executed, schema, ended };
}

describe('sharedSubscribe', () => {
  /** One parse per text, as the admission pipeline's cache hands it out. */
  const docs = new Map<string, DocumentNode>();
  const doc = (text: string) => {
    if (!docs.has(text)) docs.set(text, parse(text));
    return docs.get(text)!;
  };
  const subscribe = sharedSubscribe(new Set(['blocks']));

  it('executes each event once per document and variables, whatever the number of subscribers', async () => {
    const { bus, executed, schema } = feedSchema();
    const query = 'subscription($p: String) { blocks(prefix: $p) { number label(prefix: $p) } }';
    const streams = await Promise.all(
      [{ p: 'a' }, { p: 'a' }, { p: 'a' }, { p: 'b' }].map(
        async (v) =>
          (await subscribe({ schema, document: doc(query), variableValues: v })) as AsyncGenerator<ExecutionResult>,
      ),
    );
    const firsts = streams.map((s) => s.next());
    await new Promise((r) => setImmediate(r));
    bus.emit('block', { number: 7 });
    const results = (await Promise.all(firsts)).map((r) => r.value as ExecutionResult);
    expect(results.map((r) => r.data)).toEqual([
      { blocks: { number: 7, label: 'a7' } },
      { blocks: { number: 7, label: 'a7' } },
      { blocks: { number: 7, label: 'a7' } },
      { blocks: { number: 7, label: 'b7' } },
    ]);
    // One execution for the three subscribers of { p: 'a' }, one for { p: 'b' }.
    expect(executed.number).toBe(2);
    await Promise.all(streams.map((s) => s.return(undefined)));
  });

  it('executes other feeds, and the same text parsed again, per subscriber', async () => {
    const { bus, executed, schema } = feedSchema();
    const streams = (await Promise.all([
      subscribe({ schema, document: doc('subscription { private { number } }') }),
      subscribe({ schema, document: doc('subscription { private { number } }') }),
      subscribe({ schema, document: parse('subscription { blocks { number } }') }),
      subscribe({ schema, document: parse('subscription { blocks { number } }') }),
    ])) as AsyncGenerator<ExecutionResult>[];
    const firsts = streams.map((s) => s.next());
    await new Promise((r) => setImmediate(r));
    bus.emit('block', { number: 1 });
    expect((await Promise.all(firsts)).map((r) => (r.value as ExecutionResult).data)).toEqual([
      { private: { number: 1 } },
      { private: { number: 1 } },
      { blocks: { number: 1 } },
      { blocks: { number: 1 } },
    ]);
    expect(executed.number).toBe(4);
    await Promise.all(streams.map((s) => s.return(undefined)));
  });

  it('ends its source at once when returned while waiting for an event', async () => {
    const { schema, ended } = feedSchema();
    const stream = (await subscribe({
      schema,
      document: doc('subscription { blocks { number } }'),
    })) as AsyncGenerator<ExecutionResult>;
    const waiting = stream.next();
    await stream.return(undefined);
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(ended.count).toBe(1);
  });
});
