import { createPubSub } from '@graphql-yoga/subscription';

/** Topics pushed to GraphQL subscribers, with their payloads. */
export type Topics = {
  SERVER_TIME: [{ now: Date }];
};

/** The in-process event bus that feeds GraphQL subscriptions. */
export const pubSub = createPubSub<Topics>();
