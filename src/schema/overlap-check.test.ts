import { buildSchema, OverlappingFieldsCanBeMergedRule, parse, printSchema, validate } from 'graphql';
import { threadCpuMs } from '../../tests/kit/cpu-time';
import {
  admitDocument,
  checkedPart,
  createGraphQLPipeline,
  MAX_QUERY_TOKENS,
  overlapIsHeavy,
  TOO_COSTLY_TO_VALIDATE,
} from './limits';
import { OVERLAP_INLINE_MAX_WORK, OverlapChecker, overlapWork } from './overlap-check';
import { cpuTimed } from '../../tests/kit/cpu-time';

const schema = buildSchema(`
  type Node { id: ID! name: String parent: Node children: [Node!]! }
  type Other { id: Int }
  union Either = Node | Other
  type Query {
    node(id: ID!): Node
    either: Either
    n: Int
  }
`);

const repeat = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(' ');
type CheckerOptions = { timeoutMs?: number; maxQueued?: number; maxQueuedPerClient?: number };
const checker = (options: CheckerOptions = {}) =>
  new OverlapChecker({ sdl: () => printSchema(schema), maxTokens: MAX_QUERY_TOKENS, ...options });

describe('overlap rule off the event loop', () => {
  const checkers: OverlapChecker[] = [];
  const fresh = (options?: CheckerOptions) => {
    const c = checker(options);
    checkers.push(c);
    return c;
  };
  afterAll(async () => {
    await Promise.all(checkers.map((c) => c.close()));
  });

  it("estimates the rule's work: nothing for a client's usual document, much for repeated response names", () => {
    const usual = parse(
      `query Q($id: ID!) { node(id: $id) { id __typename ...N parent { id ...N } children { ...N } } n }
       fragment N on Node { id name __typename }`,
    );
    expect(overlapWork(usual)).toBeLessThan(20);
    expect(overlapIsHeavy(usual)).toBe(false);
    // 1000 fields through 1,110 spreads of three fragments: graphql-js compares each fragment once.
    const spreads = (n: number, name: string) => repeat(n, () => `...${name}`);
    const throughFragments = parse(
      `{ ${spreads(10, 'A')} } fragment A on Query { ${spreads(10, 'B')} } ` +
        `fragment B on Query { ${spreads(10, 'C')} } fragment C on Query { ... { ... { ... { __typename } } } }`,
    );
    expect(overlapIsHeavy(throughFragments)).toBe(false);
    const hostile = [
      `{ ${repeat(250, () => 'node(id: "1") { id parent { id } }')} }`,
      `{ ${repeat(333, (i) => `node(id: "${i}") { id }`)} }`,
      `query A { n } query B { ${repeat(9000, () => '__typename')} }`,
      `{ ...F } fragment F on Query { ...G ...H } fragment G on Query { ${repeat(30, () => 'n')} } fragment H on Query { ${repeat(30, () => 'n')} }`,
    ];
    for (const text of hostile) expect(overlapIsHeavy(parse(text))).toBe(true);
  });

  it('runs the rule inline well under 10 ms (under the tests) for a document at the threshold, whatever its shape', () => {
    // Each shape grown while its work stays within OVERLAP_INLINE_MAX_WORK.
    const shapes: Array<(n: number) => string> = [
      (n) => `{ ${repeat(n, () => 'node(id: "1") { id parent { id } }')} }`,
      (n) => `{ ${repeat(n, (i) => `node(id: "${i}") { id }`)} }`,
      (n) => `{ ${repeat(n, () => '__typename')} }`,
      (n) =>
        `{ ${repeat(n, (i) => `node(id: "1") { ...F${i} }`)} } ${repeat(n, (i) => `fragment F${i} on Node { id parent { id } }`)}`,
      (n) =>
        `{ ${repeat(n, (i) => `...F${i}`)} } ${repeat(n, (i) => `fragment F${i} on Query { n node(id: "${i}") { id } }`)}`,
      (n) => `{ ${repeat(n, (i) => `either { ... on Node { id: name } ... on Other { id } x${i}: __typename }`)} }`,
      (n) => `{ node(id: "1") { ${repeat(n, () => 'children { id name }')} } }`,
      (n) => `{ ${repeat(n, (i) => `...F${i}`)} } ${repeat(n, (i) => `fragment F${i} on Query { x${i}: n }`)}`,
      (n) =>
        `{ ${repeat(n, (i) => `...F${i}`)} } ${repeat(n, (i) => `fragment F${i} on Query { ...G${i} } fragment G${i} on Query { node(id: "${i}") { id } }`)}`,
    ];
    for (const shape of shapes) {
      let n = 2;
      while (overlapWork(parse(shape(n + 1))) <= OVERLAP_INLINE_MAX_WORK) n += 1;
      const document = parse(shape(n));
      validate(schema, document, [OverlappingFieldsCanBeMergedRule]);
      // This thread's CPU time (other test workers sharing the cores cannot inflate it), best of five.
      const best = Math.min(
        ...[0, 1, 2, 3, 4].map(
          () => cpuTimed(() => validate(schema, document, [OverlappingFieldsCanBeMergedRule])).cpuMs,
        ),
      );
      // The shape and its size, should it fail.
      expect({ shape: shape(1), n, fast: best < 10 }).toEqual({ shape: shape(1), n, fast: true });
    }
  });

  it('answers in the worker exactly what the inline rule answers: conflicts with their locations, and valid documents', async () => {
    const pipeline = createGraphQLPipeline(schema, { overlap: fresh() });
    const cases = [
      // Valid: the same field repeated.
      `{ ${repeat(40, () => 'node(id: "1") { id parent { id } }')} }`,
      // Arguments differ.
      `{ ${repeat(40, (i) => `node(id: "${i}") { id }`)} }`,
      // Aliases of different fields under one response name.
      `{ ${repeat(30, (i) => `node(id: "1") { x: ${i % 2 ? 'id' : 'name'} }`)} }`,
      // Conflicts reached through fragments and inline fragments, and a return type that differs.
      `{ ${repeat(20, (i) => `either { ...F${i % 2} ... on Node { name } }`)} } fragment F0 on Node { name: id } fragment F1 on Other { name: id }`,
      // Two operations, no operation name: the errors of both.
      `query A { n } query B { ${repeat(30, (i) => `node(id: "${i % 3}") { id }`)} }`,
      // An operation name: the operation that runs and its fragments only.
      `query A { ...F } query B { ${repeat(30, (i) => `node(id: "${i % 3}") { id }`)} } fragment F on Query { ${repeat(30, (i) => `node(id: "${i % 2}") { id }`)} }`,
      // Over graphql-js's 100 errors: it stops with "Too many validation errors", which has no location.
      `{ ${repeat(120, (i) => `node(id: "${i}") { id }`)} }`,
    ];
    for (const source of cases) {
      const document = checkedPart(parse(source), source.includes('fragment F on Query') ? 'A' : undefined).document;
      expect(overlapIsHeavy(document)).toBe(true);
      const inline = validate(schema, document, [OverlappingFieldsCanBeMergedRule]);
      const operationName = source.includes('fragment F on Query') ? 'A' : undefined;
      const atOnce = admitDocument(schema, source, {}, operationName);
      const worker = await pipeline.admit(source, {}, operationName);
      expect(worker.errors?.map((e) => e.toJSON())).toEqual(atOnce.errors?.map((e) => e.toJSON()));
      expect(worker.document !== undefined).toBe(inline.length === 0);
      if (inline.length > 0) expect(worker.errors?.map((e) => e.toJSON())).toEqual(inline.map((e) => e.toJSON()));
    }
  });

  it('refuses a document the worker cannot check in time, and checks the next one with a fresh worker', async () => {
    // A limit a fresh worker's first small check stays far under, even on a loaded machine.
    const overlap = fresh({ timeoutMs: 1_000 });
    const pipeline = createGraphQLPipeline(schema, { overlap });
    // 1000 fields, the cost limit: about two seconds of graphql-js on an idle machine.
    const slow = `{ ${repeat(500, () => 'node(id: "1") { id }')} }`;
    const refused = await pipeline.admit(slow, {});
    expect(refused.errors?.map((e) => e.message)).toEqual([
      `${TOO_COSTLY_TO_VALIDATE}: checking that its fields can be merged took over 1000 ms`,
    ]);
    expect(overlap.stats).toMatchObject({ timeouts: 1, workersStarted: 2 });
    const next = await pipeline.admit(`{ ${repeat(20, () => 'node(id: "1") { id }')} }`, {});
    expect(next.errors).toBeUndefined();
    expect(overlap.stats).toMatchObject({ timeouts: 1, workersStarted: 2, checks: 2 });
  });

  it('checks only the operation that runs and what it uses: an unused operation of 9,000 fields costs nothing', async () => {
    const overlap = fresh();
    const pipeline = createGraphQLPipeline(schema, { overlap });
    const source = `query A { ...F } query B { ${repeat(9_000, () => '__typename')} nope } fragment F on Query { n }`;
    const { result, cpuMs } = await (async () => {
      const started = threadCpuMs();
      const r = await pipeline.admit(source, {}, 'A');
      return { result: r, cpuMs: threadCpuMs() - started };
    })();
    expect(result.errors).toBeUndefined();
    expect(result.document?.definitions).toHaveLength(3);
    expect(cpuMs).toBeLessThan(100);
    expect(overlap.stats.checks).toBe(0);
    // Without an operation name, every operation is measured and validated (and B is refused).
    expect((await pipeline.admit(source, {})).errors?.[0]?.message).toMatch(/too complex/);
  });

  it('bounds the documents waiting for the worker: beyond, SERVICE_UNAVAILABLE', async () => {
    const overlap = fresh({ maxQueued: 2 });
    const source = `{ ${repeat(40, () => 'node(id: "1") { id }')} }`;
    // The worker is starting: all three wait, the third beyond the bound.
    const outcomes = await Promise.allSettled([overlap.check(source), overlap.check(source), overlap.check(source)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    const pipeline = createGraphQLPipeline(schema, { overlap: fresh({ maxQueued: 0 }) });
    const refused = await pipeline.admit(source, {});
    expect(refused.errors?.[0]?.originalError).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it("holds one client's waiting documents to its own place: another client's still wait", async () => {
    const overlap = fresh();
    const source = `{ ${repeat(40, () => 'node(id: "1") { id }')} }`;
    // The worker is starting: every document accepted waits.
    const outcomes = await Promise.allSettled([
      overlap.check(source, undefined, 'flooder'),
      overlap.check(source, undefined, 'flooder'),
      overlap.check(source, undefined, 'flooder'),
      overlap.check(source, undefined, 'honest'),
      overlap.check(source, undefined, 'other'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
    for (const o of outcomes.slice(1, 3)) {
      expect((o as PromiseRejectedResult).reason).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        message: expect.stringMatching(/of this client/),
        headers: { 'Retry-After': '2' },
      });
    }
    // Once its document is checked, the client's next one waits again; through the pipeline too.
    expect((await overlap.check(source, undefined, 'flooder')).kind).toBe('checked');
    const pipeline = createGraphQLPipeline(schema, { overlap: fresh() });
    const [first, second, other] = await Promise.all([
      pipeline.admit(source, {}, undefined, '192.0.2.1'),
      pipeline.admit(`${source} `, {}, undefined, '192.0.2.1'),
      pipeline.admit(`${source}  `, {}, undefined, '192.0.2.2'),
    ]);
    // Whichever of the client's two reaches the queue second is refused; the other client's waits.
    const codes = [first, second].map((a) => (a.errors?.[0]?.originalError as { code?: string } | undefined)?.code);
    expect(codes.sort()).toEqual(['SERVICE_UNAVAILABLE', undefined]);
    expect(other.errors).toBeUndefined();
  });
});
