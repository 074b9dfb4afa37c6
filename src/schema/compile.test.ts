import { buildSchema, parse } from 'graphql';
import { GraphQLJSON } from 'graphql-scalars';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { compileDocument, mayCompile } from './compile';

const schema = buildSchema(`
  scalar JSON
  enum Network { testnet mainnet }
  type Query { echo(s: String, n: Int, on: Boolean, net: Network, j: JSON): String }
`);
Object.assign(schema.getType('JSON')!, {
  parseLiteral: GraphQLJSON.parseLiteral,
  parseValue: GraphQLJSON.parseValue,
  serialize: GraphQLJSON.serialize,
});
schema.getQueryType()!.getFields().echo!.resolve = () => 'ok';
const root = {};
const MARKER = '__MAGIC_DATE__33a9e76d_02e0_4128_8e92_3530ad3da74d';

afterEach(() => {
  delete (globalThis as Record<string, unknown>).__jitInjected;
});

describe('compiling client documents with graphql-jit', () => {
  it('is what a string literal holding graphql-jit’s Date marker turns into code (the reason for the rule)', () => {
    // graphql-jit itself, without the rule: the literal runs.
    const jit = compileQuery(schema, parse(`{ echo(s: "${MARKER}globalThis.__jitInjected=1") }`));
    expect(isCompiledQuery(jit)).toBe(true);
    if (isCompiledQuery(jit)) void jit.query(root, {}, {});
    expect((globalThis as Record<string, unknown>).__jitInjected).toBe(1);
  });

  it('refuses any document with a string literal, anywhere, and keys carrying the marker', () => {
    for (const source of [
      `{ echo(s: "${MARKER}globalThis.__jitInjected=1") }`,
      '{ echo(s: "plain") }',
      '{ echo(s: """block""") }',
      '{ echo(j: ["a"]) }',
      '{ echo(j: { k: "a" }) }',
      'query($s: String = "default") { echo(s: $s) }',
      `{ echo(j: { ${MARKER}globalThis: 1 }) }`,
    ]) {
      expect({ source, may: mayCompile(parse(source)) }).toEqual({ source, may: false });
      expect(compileDocument(schema, parse(source))).toBeUndefined();
    }
    expect((globalThis as Record<string, unknown>).__jitInjected).toBeUndefined();
  });

  it('compiles documents whose values are variables, numbers, booleans, enums and plain keys', async () => {
    for (const source of [
      'query($s: String, $j: JSON) { echo(s: $s, j: $j) }',
      '{ echo(n: 3, on: true, net: testnet, j: { k: [1, 2.5, false, null] }) }',
    ]) {
      const compiled = compileDocument(schema, parse(source));
      expect(compiled).toBeDefined();
      const result = await compiled!.query(root, {}, { s: `${MARKER}globalThis.__jitInjected=1`, j: { a: MARKER } });
      expect(result).toEqual({ data: { echo: 'ok' } });
    }
    // A variable's value is read at run time, never written into the code.
    expect((globalThis as Record<string, unknown>).__jitInjected).toBeUndefined();
  });
});
