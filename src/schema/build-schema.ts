import { validateOrReject, type ValidatorOptions } from 'class-validator';
import type { GraphQLSchema } from 'graphql';
import { ArgumentValidationError, buildSchema, type ContainerType, type PubSub, type ResolverData } from 'type-graphql';
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
 * The one GraphQL schema: served at /graphql (HTTP and WebSocket) and, through SOFA, as REST.
 * `container` hands type-graphql the app's resolver (and middleware) instances, built with their
 * services by the composition root; `pubSub` feeds the subscriptions (src/schema/pubsub.ts).
 */
export function buildAppSchema(deps: { container: ContainerType; pubSub: PubSub }): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: RESOLVERS,
    container: deps.container,
    pubSub: deps.pubSub,
    // Inputs are checked with their class-validator rules before a resolver runs.
    validateFn: validateArgument,
  });
}

/** The same schema, to be printed or documented but never executed (OpenAPI, the pipeline benchmark). */
export function buildPrintableSchema(): Promise<GraphQLSchema> {
  const refuse = () => {
    throw new Error('This schema was built to be printed, not executed');
  };
  return buildAppSchema({ container: { get: refuse }, pubSub: { publish: refuse, subscribe: refuse } });
}
