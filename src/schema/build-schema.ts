import { validateOrReject, type ValidatorOptions } from 'class-validator';
import { GraphQLObjectType, GraphQLSchema, type GraphQLFieldConfigMap } from 'graphql';
import {
  ArgumentValidationError,
  buildSchema,
  getMetadataStorage,
  type ClassType,
  type ContainerType,
  type PubSub,
  type ResolverData,
} from 'type-graphql';
import { refuseControlCharacters } from '../kernel/text-input';
import { RESOLVERS } from '../resolvers';

/** type-graphql's defaults for class-validator, with unknown values allowed. */
const VALIDATOR_OPTIONS: ValidatorOptions = { forbidUnknownValues: false, skipMissingProperties: true };

/** An input class instance (type-graphql builds one per input-type argument); plain JSON values have no rules. */
const hasRules = (value: unknown): value is object =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  Object.getPrototypeOf(value) !== Object.prototype;

/** The argument sets already checked for control characters (type-graphql validates one argument at a time). */
const checkedArguments = new WeakSet<object>();

/**
 * Checks an argument for control characters, then with its class-validator rules before the resolver runs, as type-graphql's own
 * `validate` setting does, but with class-validator loaded once: type-graphql's default loads it
 * anew for every object-valued argument of every call, JSON values (a gateway call's `args`) included.
 */
async function validateArgument(value: unknown, _type: unknown, data: ResolverData): Promise<void> {
  // No text argument holds a control character, on any face (docs/api.md, "Conventions").
  if (!checkedArguments.has(data.args)) {
    checkedArguments.add(data.args);
    refuseControlCharacters(data.args);
  }
  const targets = Array.isArray(value) ? value.filter(hasRules) : hasRules(value) ? [value] : [];
  if (targets.length === 0) return;
  try {
    await Promise.all(targets.map((t) => validateOrReject(t, VALIDATOR_OPTIONS)));
  } catch (err) {
    throw new ArgumentValidationError(err as ConstructorParameters<typeof ArgumentValidationError>[0]);
  }
}

/**
 * The schema with its root fields in the resolvers' order (MODULES order), each resolver's fields
 * in the order its class declares them. type-graphql orders them by when each resolver class was
 * defined, which is wherever the program happened to import it first. The other types follow the
 * roots, as type-graphql orders them (what no root reaches comes last).
 */
function inResolverOrder(schema: GraphQLSchema, resolvers: readonly ClassType[]): GraphQLSchema {
  const storage = getMetadataStorage();
  const reorder = (
    type: GraphQLObjectType | null | undefined,
    handlers: ReadonlyArray<{ target: unknown; schemaName: string }>,
  ): GraphQLObjectType | undefined => {
    if (!type) return undefined;
    const position = (h: { target: unknown }) => resolvers.indexOf(h.target as ClassType);
    const ordered = handlers.filter((h) => position(h) >= 0).sort((a, b) => position(a) - position(b));
    const config = type.toConfig();
    const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const { schemaName } of ordered) fields[schemaName] = config.fields[schemaName]!;
    return new GraphQLObjectType({ ...config, fields });
  };
  const config = schema.toConfig();
  const roots = new GraphQLSchema({
    ...config,
    query: reorder(config.query, storage.queries),
    mutation: reorder(config.mutation, storage.mutations),
    subscription: reorder(config.subscription, storage.subscriptions),
    types: [],
  });
  const reached = roots.toConfig();
  const unreached = config.types.filter((t) => !roots.getType(t.name));
  return new GraphQLSchema({ ...reached, types: [...reached.types, ...unreached] });
}

/**
 * The one GraphQL schema: served at /graphql (HTTP and WebSocket) and, through SOFA, as REST.
 * `container` hands type-graphql the app's resolver (and middleware) instances, built with their
 * services by the composition root; `pubSub` feeds the subscriptions (src/schema/pubsub.ts).
 */
export async function buildAppSchema(deps: { container: ContainerType; pubSub: PubSub }): Promise<GraphQLSchema> {
  const [first, ...rest] = RESOLVERS;
  if (!first) throw new Error('No resolvers');
  const schema = await buildSchema({
    resolvers: [first, ...rest],
    container: deps.container,
    pubSub: deps.pubSub,
    // Inputs are checked with their class-validator rules before a resolver runs.
    validateFn: validateArgument,
  });
  return inResolverOrder(schema, RESOLVERS);
}

/** The same schema, to be printed or documented but never executed (OpenAPI, the pipeline benchmark). */
export function buildPrintableSchema(): Promise<GraphQLSchema> {
  const refuse = () => {
    throw new Error('This schema was built to be printed, not executed');
  };
  return buildAppSchema({ container: { get: refuse }, pubSub: { publish: refuse, subscribe: refuse } });
}
