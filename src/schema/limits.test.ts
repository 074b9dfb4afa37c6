import { buildSchema, parse, validate } from 'graphql';
import { assertComplexity, graphqlValidationRules, MAX_QUERY_DEPTH } from './limits';

const schema = buildSchema(`
  type Node { id: ID! parent: Node children: [Node!]! }
  type Query { node(id: ID!): Node }
`);

const nested = (depth: number) => `{ node(id: "1") ${'{ parent '.repeat(depth - 1)}{ id }${' }'.repeat(depth - 1)} }`;

describe('GraphQL limits', () => {
  it('accepts operations up to the depth limit and refuses deeper ones', () => {
    expect(validate(schema, parse(nested(MAX_QUERY_DEPTH - 1)), graphqlValidationRules())).toEqual([]);
    const errors = validate(schema, parse(nested(MAX_QUERY_DEPTH + 2)), graphqlValidationRules());
    expect(errors[0]?.message).toMatch(/exceeds maximum operation depth/);
  });

  it('refuses alias floods by cost, and ignores invalid variables (execution reports them)', () => {
    const flood = parse(`{ ${Array.from({ length: 1200 }, (_, i) => `a${i}: node(id: "1") { id }`).join(' ')} }`);
    expect(() => assertComplexity(schema, flood, {})).toThrow(/too complex/);
    expect(() => assertComplexity(schema, parse('{ node(id: "1") { id } }'), {})).not.toThrow();
    expect(() => assertComplexity(schema, parse('query($id: ID!) { node(id: $id) { id } }'), {})).not.toThrow();
  });
});
