import { Field, ObjectType, Resolver, Root, Subscription } from 'type-graphql';
import { pubSub } from '../../schema/pubsub';

@ObjectType({ description: 'A tick of the server clock, pushed every second.' })
export class ServerTime {
  @Field({ description: 'Server time (ISO-8601 UTC).' })
  now!: Date;
}

/** One clock for the whole process feeds every subscriber. */
setInterval(() => pubSub.publish('SERVER_TIME', { now: new Date() }), 1000).unref();

@Resolver()
export class ServerTimeResolver {
  @Subscription(() => ServerTime, {
    topics: 'SERVER_TIME',
    description: 'Pushes the server time every second (a liveness check for WebSocket clients).',
  })
  serverTime(@Root() tick: ServerTime): ServerTime {
    return tick;
  }
}
