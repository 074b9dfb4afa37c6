import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { GraphQLJSON as LibraryJSON, GraphQLJSONObject as LibraryJSONObject } from 'graphql-scalars';

type Variables = Record<string, unknown> | null | undefined;

/**
 * A GraphQL literal written where JSON is expected, as the JSON value it spells (docs/api.md,
 * "GraphQL specifics"): objects become plain objects (own keys only, `__proto__` included as a key), lists
 * arrays, numbers numbers, and an integer beyond 2^53 keeps its digits as a decimal string (a
 * number would lose them); a bare name (an enum literal) is read as its text, a variable as its value.
 */
export function jsonOfLiteral(ast: ValueNode, variables?: Variables): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT: {
      const n = Number(ast.value);
      return Number.isSafeInteger(n) ? n : ast.value;
    }
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.ENUM:
      return ast.value;
    case Kind.LIST:
      return ast.values.map((v) => jsonOfLiteral(v, variables));
    case Kind.OBJECT:
      // fromEntries defines own properties: a `__proto__` field is a key, never the prototype.
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, jsonOfLiteral(f.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[ast.name.value] ?? null;
  }
}

/**
 * The schema's `JSON` scalar: graphql-scalars' (same name, serialisation and variables), with
 * literals read by jsonOfLiteral. The library's builds objects without a prototype, which the
 * resolvers and the ABI coder cannot handle (a 500), and drops enum literals.
 */
export const GraphQLJSON = new GraphQLScalarType({
  ...LibraryJSON.toConfig(),
  parseLiteral: (ast, variables) => jsonOfLiteral(ast, variables),
});

/** The schema's `JSONObject` scalar: graphql-scalars' with an object literal read by jsonOfLiteral. */
export const GraphQLJSONObject = new GraphQLScalarType({
  ...LibraryJSONObject.toConfig(),
  parseLiteral: (ast, variables) => {
    if (ast.kind !== Kind.OBJECT)
      throw new GraphQLError('JSONObject cannot represent a non-object value', { nodes: ast });
    return jsonOfLiteral(ast, variables);
  },
});
