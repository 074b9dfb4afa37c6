import { graphql, GraphQLObjectType, GraphQLSchema, GraphQLString, parseValue } from 'graphql';
import { GraphQLJSON, GraphQLJSONObject, jsonOfLiteral } from './json-scalar';

describe('the JSON scalar read from a GraphQL literal', () => {
  it.each([
    ['{a: 1}', { a: 1 }],
    ['[{a: 1}, {b: [true, null, "x"]}]', [{ a: 1 }, { b: [true, null, 'x'] }]],
    ['{a: {b: {c: [1.5, -2, 0]}}}', { a: { b: { c: [1.5, -2, 0] } } }],
    ['someName', 'someName'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    ['9007199254740991', 9007199254740991],
    ['"text"', 'text'],
    ['[]', []],
    ['{}', {}],
  ])('reads %s as the JSON it spells', (literal, expected) => {
    const value = jsonOfLiteral(parseValue(literal));
    expect(value).toEqual(expected);
    // Plain objects, as JSON.parse makes them.
    expect(JSON.parse(JSON.stringify(value))).toEqual(value);
  });

  it('keeps __proto__ as a key, never as the prototype', () => {
    const value = jsonOfLiteral(parseValue('{__proto__: {polluted: true}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // A string of it works: the library's objects without prototype could not be printed.
    expect(`${String(jsonOfLiteral(parseValue('{a: 1}')))}`).toBe('[object Object]');
  });

  it('reads variables inside a literal', () => {
    expect(jsonOfLiteral(parseValue('[{a: $x}, $y]'), { x: 5 })).toEqual([{ a: 5 }, null]);
  });

  it('answers a query with object literals where JSON and JSONObject are expected', async () => {
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: {
          echo: {
            type: GraphQLString,
            args: { j: { type: GraphQLJSON }, o: { type: GraphQLJSONObject } },
            resolve: (_root, args: { j?: unknown; o?: unknown }) => `${JSON.stringify(args.j)} ${String(args.o)}`,
          },
        },
      }),
    });
    const ok = await graphql({ schema, source: '{ echo(j: [{a: 1, b: {c: x}}], o: {k: "v"}) }' });
    expect(ok).toEqual({ data: { echo: '[{"a":1,"b":{"c":"x"}}] [object Object]' } });
    const notObject = await graphql({ schema, source: '{ echo(o: [1]) }' });
    expect(notObject.errors?.[0]?.message).toMatch(/JSONObject cannot represent a non-object value/);
  });
});
