import { buildSchema, parse } from 'graphql';
import { cpuTimed } from '../../tests/kit/cpu-time';
import {
  admitDocument,
  assertCost,
  createGraphQLPipeline,
  MAX_ADMITTED_DOCUMENTS,
  MAX_QUERY_DEPTH,
  runInTurns,
  runToEnd,
} from './limits';

const schema = buildSchema(`
  type Node { id: ID! parent: Node children: [Node!]! }
  type Lookup { balance: String }
  enum Network { testnet mainnet }
  type Query {
    node(id: ID!): Node
    address(address: String!, scan: Int): Lookup
    status(network: Network!): ID
    contractOpenApi(id: ID!): String
    contractSwagger(id: ID!): String
  }
`);

const nested = (depth: number) => `{ node(id: "1") ${'{ parent '.repeat(depth - 1)}{ id }${' }'.repeat(depth - 1)} }`;
const messages = (source: string, variables: Record<string, unknown> = {}) =>
  (admitDocument(schema, source, variables).errors ?? []).map((e) => e.message);

describe('GraphQL pipeline', () => {
  it('admits ordinary documents, with their variables', () => {
    expect(admitDocument(schema, '{ node(id: "1") { id parent { id } } }', {}).document).toBeDefined();
    expect(admitDocument(schema, 'query($id: ID!) { node(id: $id) { id } }', { id: '1' }).document).toBeDefined();
    expect(messages('query($id: ID!) { node(id: $id) { id } }', {})[0]).toMatch(/^Variable "\$id"/);
  });

  it('accepts operations up to the depth limit and refuses deeper ones', () => {
    expect(messages(nested(MAX_QUERY_DEPTH - 1))).toEqual([]);
    expect(messages(nested(MAX_QUERY_DEPTH + 2)).join()).toMatch(/depth/i);
  });

  it('stops parsing at 10,000 tokens: a 352 KB __typename flood is refused in well under a second', () => {
    const flood = `{ ${'__typename '.repeat(32_000)}}`;
    // CPU time of this thread, not wall-clock: other test workers share the cores.
    const { result, cpuMs } = cpuTimed(() => messages(flood));
    expect(result[0]).toMatch(/10000 tokens/);
    expect(cpuMs).toBeLessThan(1000);
  });

  it('refuses the largest flood under the token limit by cost, before the quadratic validation', () => {
    const flood = `{ ${'__typename '.repeat(9_990)}}`;
    const costly = cpuTimed(() => messages(flood));
    expect(costly.result[0]).toMatch(/too complex/);
    expect(costly.cpuMs).toBeLessThan(1000);
    // Unknown fields cost nothing to the estimator; the linear rules refuse them before the overlap rule.
    const unknown = cpuTimed(() => messages(`{ ${'nope '.repeat(9_990)}}`));
    expect(unknown.result.length).toBeGreaterThan(0);
    expect(unknown.cpuMs).toBeLessThan(1000);
  });

  it('refuses more than 100 aliases before validation', () => {
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: node(id: "1") { id }`).join(' ')} }`;
    expect(messages(aliases(100))).toEqual([]);
    expect(messages(aliases(101)).join()).toMatch(/alias/i);
  });

  it('refuses a document the estimator cannot measure (over 10,000 nodes through fragments)', () => {
    const ids = Array.from({ length: 100 }, () => 'id').join(' ');
    const parents = Array.from({ length: 100 }, () => 'parent { ...F0 }').join(' ');
    const source = `{ node(id: "1") { ...F1 } } fragment F0 on Node { ${ids} } fragment F1 on Node { ${parents} }`;
    expect(messages(source)[0]).toMatch(/cannot be measured/);
    const document = parse(source);
    expect(() => assertCost(schema, document, {})).toThrow(/cannot be measured/);
  });

  it('answers an argument written inline with a value its type refuses with graphql-js’s words, not "cannot be measured"', () => {
    // The estimator reads arguments and stops at these; validation names the enum (the error map's INVALID_NETWORK).
    expect(messages('{ status(network: foonet) }')).toEqual(['Value "foonet" does not exist in "Network" enum.']);
    expect(messages('{ status(network: "testnet") }')).toEqual([
      'Enum "Network" cannot represent non-enum value: "testnet". Did you mean the enum value "testnet"?',
    ]);
    expect(messages('{ node(id: 5.5) { id } }')[0]).toMatch(/^ID cannot represent a non-string/);
    expect(messages('{ status(network: testnet) }')).toEqual([]);
  });

  it('charges chain-reading fields by the blocks they read: a 5000-block scan fits, two do not', () => {
    expect(messages('{ address(address: "0x1", scan: 5000) { balance } }')).toEqual([]);
    expect(
      messages(
        '{ a: address(address: "0x1", scan: 5000) { balance } b: address(address: "0x1", scan: 1) { balance } }',
      )[0],
    ).toMatch(/blocks/);
    const scans = `{ ${Array.from({ length: 100 }, (_, i) => `a${i}: address(address: "0x1", scan: 5000) { balance }`).join(' ')} }`;
    expect(messages(scans)[0]).toMatch(/5000/);
    expect(messages('query($n: Int) { address(address: "0x1", scan: $n) { balance } }', { n: 6000 })[0]).toMatch(
      /blocks/,
    );
  });

  it('allows one contract document per operation: a second (an alias, or the other document) is refused', async () => {
    expect(messages('{ contractOpenApi(id: "1") node(id: "1") { id } }')).toEqual([]);
    expect(messages('{ contractSwagger(id: "1") }')).toEqual([]);
    for (const source of [
      '{ a: contractOpenApi(id: "1") b: contractOpenApi(id: "1") }',
      '{ contractOpenApi(id: "1") contractSwagger(id: "1") }',
      '{ ...F ...F } fragment F on Query { a: contractSwagger(id: "1") }',
    ]) {
      expect(messages(source)[0]).toMatch(/2 contract documents .* at most 1 per operation/);
    }
    // @include with a variable: measured by the call's variables.
    const pipeline = createGraphQLPipeline(schema);
    const q = 'query($b: Boolean!) { a: contractOpenApi(id: "1") b: contractOpenApi(id: "2") @include(if: $b) }';
    expect((await pipeline.admit(q, { b: false })).document).toBeDefined();
    expect((await pipeline.admit(q, { b: true })).errors?.[0]?.message).toMatch(/contract documents/);
  });

  it('remembers admitted documents and still measures each call by its variables', async () => {
    const pipeline = createGraphQLPipeline(schema);
    const q = 'query($n: Int) { address(address: "0x1", scan: $n) { balance } }';
    expect((await pipeline.admit(q, { n: 10 })).document).toBeDefined();
    expect((await pipeline.admit(q, { n: 10 })).document).toBeDefined();
    expect((await pipeline.admit(q, { n: 9000 })).errors?.[0]?.message).toMatch(/blocks/);
  });
});

describe('GraphQL pipeline memory', () => {
  it('measures a known document again only when variables can change its cost, and per operation name', async () => {
    const pipeline = createGraphQLPipeline(schema);
    const fixed = 'query($id: ID!) { node(id: $id) { id } }';
    expect((await pipeline.admit(fixed, { id: '1' })).document).toBeDefined();
    // Execution coerces the variables; the pipeline no longer needs to.
    expect((await pipeline.admit(fixed, { id: '2' })).document).toBeDefined();
    const skip = `query($s: Boolean!) { a: address(address: "0x1", scan: 4000) { balance } b: address(address: "0x1", scan: 4000) @skip(if: $s) { balance } }`;
    expect((await pipeline.admit(skip, { s: true })).document).toBeDefined();
    expect((await pipeline.admit(skip, { s: false })).errors?.[0]?.message).toMatch(/blocks/);
    const two = `query A { node(id: "1") { id } } query B { ${Array.from({ length: 3 }, (_, i) => `s${i}: address(address: "0x1", scan: 2000) { balance }`).join(' ')} }`;
    expect((await pipeline.admit(two, {}, 'A')).document).toBeDefined();
    expect((await pipeline.admit(two, {}, 'B')).errors?.[0]?.message).toMatch(/blocks/);
  });

  it('stays bounded under a flood of distinct valid documents, small or large, and still admits the forgotten ones', async () => {
    const pipeline = createGraphQLPipeline(schema);
    const small = (i: number) => `{ node(id: "${i}") { id } }`;
    for (let i = 0; i < MAX_ADMITTED_DOCUMENTS * 2; i++)
      expect((await pipeline.admit(small(i), {})).document).toBeDefined();
    expect(pipeline.cachedDocuments).toBe(MAX_ADMITTED_DOCUMENTS);
    // The first ones were forgotten: admitted again, parsed again.
    expect((await pipeline.admit(small(0), {})).document).toBeDefined();

    // 10,000-character documents count for their parsed size, not their source's: about a hundred fit.
    const large = createGraphQLPipeline(schema);
    const big = (i: number) => `{ node(id: "${String(i).padStart(10_000, 'x')}") { id } }`;
    for (let i = 0; i < 300; i++) expect((await large.admit(big(i), {})).document).toBeDefined();
    expect(large.cachedDocuments).toBeGreaterThan(50);
    expect(large.cachedDocuments).toBeLessThanOrEqual(110);
  });
});

describe('GraphQL admission in turns', () => {
  function* steps(log: string[]) {
    for (let i = 0; i < 3; i++) {
      log.push(`step ${i}`);
      yield;
    }
    log.push('step 3');
    return 'done';
  }

  it('runs every step at once, or gives the event loop back between steps once a turn has used its budget', async () => {
    const atOnce: string[] = [];
    expect(runToEnd(steps(atOnce))).toBe('done');
    expect(atOnce).toEqual(['step 0', 'step 1', 'step 2', 'step 3']);

    // A budget of 0: the loop is given back after every step. Others' setImmediate callbacks queued
    // meanwhile run between two steps.
    const log: string[] = [];
    const others = (async () => {
      for (let i = 0; i < 3; i++) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        log.push(`other ${i}`);
      }
    })();
    expect(await runInTurns(steps(log), 0)).toBe('done');
    await others;
    expect(log).toEqual(['step 0', 'other 0', 'step 1', 'other 1', 'step 2', 'other 2', 'step 3']);

    // Within the budget nothing is given back: the answer comes before anything queued meanwhile.
    let immediateRan = false;
    setImmediate(() => (immediateRan = true));
    expect(await runInTurns(steps([]), 60_000)).toBe('done');
    expect(immediateRan).toBe(false);
  });

  it('answers in turns exactly what it answers at once: admitted documents and every refusal', async () => {
    const aliases = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `a${i}: node(id: "1") { id }`).join(' ')} }`;
    const scans = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `s${i}: address(address: "0x1", scan: 2000) { balance }`).join(' ')} }`;
    const cases: Array<[string, Record<string, unknown>, string?]> = [
      ['{ node(id: "1") { id parent { id } } }', {}],
      ['query($id: ID!) { node(id: $id) { id } }', {}],
      [nested(MAX_QUERY_DEPTH + 2), {}],
      [`{ ${'__typename '.repeat(9_990)}}`, {}],
      [aliases(100), {}],
      [aliases(101), {}],
      [scans(2), {}],
      [scans(3), {}],
      ['{ a: contractOpenApi(id: "1") b: contractSwagger(id: "1") }', {}],
      ['{ status(network: foonet) }', {}],
      ['{ node(id: "1") { id } node(id: "2") { id } }', {}],
      ['query A { node(id: "1") { id } } query B { nope }', {}, 'A'],
      [
        `{ node(id: "1") { ...F1 } } fragment F0 on Node { ${'id '.repeat(100)}} fragment F1 on Node { ${'parent { ...F0 } '.repeat(100)}}`,
        {},
      ],
      [`query A { node(id: "1") { id } } query B { ${scans(3).slice(1, -1)} }`, {}, 'B'],
    ];
    for (const [source, variables, operationName] of cases) {
      const atOnce = admitDocument(schema, source, variables, operationName);
      // A pipeline of its own for each: nothing remembered, every document admitted for the first time.
      const inTurns = await createGraphQLPipeline(schema).admit(source, variables, operationName);
      expect(inTurns.errors?.map((e) => [e.message, e.locations])).toEqual(
        atOnce.errors?.map((e) => [e.message, e.locations]),
      );
      expect(inTurns.document !== undefined).toBe(atOnce.document !== undefined);
    }
  });
});
