import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { RESOLVERS } from '../resolvers';
import { pubSub } from './pubsub';

/** The one GraphQL schema: served at /graphql (HTTP and WebSocket) and, through SOFA, as REST. */
export function buildAppSchema(): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: RESOLVERS,
    pubSub,
    // Inputs are checked with their class-validator rules before a resolver runs.
    validate: { forbidUnknownValues: false },
  });
}
