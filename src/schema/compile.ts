import { BREAK, visit, type DocumentNode, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/** The prefix of the markers graphql-jit writes into the code it generates (NaN, ±Infinity, Date). */
const JIT_MARKER = '__MAGIC_';

/**
 * Whether graphql-jit may compile `document`: it holds no string literal, and no name in an object
 * literal carries graphql-jit's marker.
 *
 * graphql-jit 0.8.9 writes a field's literal argument values into the code it generates
 * (`compileArguments`: `objectStringify(args.values)`), then rewrites every JSON string that starts
 * with its Date marker (`"__MAGIC_DATE__<uuid><text>"`) into `new Date(<text>)`: a string literal
 * in a client's document would run as code in the service. Variables are read at run time and
 * never written into the code; numbers, booleans and enum values cannot hold code; names are
 * GraphQL names (letters, digits, `_`), and the only ones a client chooses inside a value are the
 * keys of an object literal given to a JSON argument, checked for the marker here.
 */
export function mayCompile(document: DocumentNode): boolean {
  let safe = true;
  visit(document, {
    StringValue() {
      safe = false;
      return BREAK;
    },
    ObjectField(node) {
      if (!node.name.value.includes(JIT_MARKER)) return undefined;
      safe = false;
      return BREAK;
    },
  });
  return safe;
}

/**
 * graphql-jit's compilation of `document` when it may compile it (`mayCompile`) and compiling
 * succeeds; otherwise undefined, and the caller runs the document with graphql-js.
 */
export function compileDocument(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string,
): CompiledQuery | undefined {
  if (!mayCompile(document)) return undefined;
  const jit = compileQuery(schema, document, operationName);
  return isCompiledQuery(jit) ? jit : undefined;
}
