import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';

/** Deepest selection accepted; the schema's own types nest far less than this. */
export const MAX_QUERY_DEPTH = 10;
/** Most fields one operation may select (aliases count each time they repeat a field). */
export const MAX_QUERY_COMPLEXITY = 1000;

/** Static validation rules that refuse abusive operations before anything runs. */
export function graphqlValidationRules(): ValidationRule[] {
  return [depthLimit(MAX_QUERY_DEPTH)];
}

/** Refuses an operation whose cost exceeds the limit; needs the variables, so runs after validation. */
export function assertComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName?: string | null,
): void {
  let cost: number;
  try {
    cost = getComplexity({
      schema,
      query: document,
      variables: variables ?? {},
      operationName: operationName ?? undefined,
      estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
    });
  } catch {
    // Invalid variables: execution reports them with their own message.
    return;
  }
  if (cost > MAX_QUERY_COMPLEXITY) {
    throw new GraphQLError(`The operation is too complex: cost ${cost} exceeds the limit of ${MAX_QUERY_COMPLEXITY}`, {
      extensions: { http: { status: 400 } },
    });
  }
}

/** Apollo plugin applying assertComplexity to every HTTP operation. */
export function complexityPlugin(schema: GraphQLSchema): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document }) {
          assertComplexity(schema, document, request.variables, request.operationName);
        },
      };
    },
  };
}
