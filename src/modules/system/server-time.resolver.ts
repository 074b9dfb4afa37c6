import { Field, ObjectType, Resolver, Root, Subscription } from 'type-graphql';

@ObjectType({ description: 'A tick of the server clock, pushed every second.' })
export class ServerTime {
  @Field({ description: 'Server time (ISO-8601 UTC).' })
  now!: Date;
}

/** One clock per app feeds every subscriber (started with the app: src/app). */
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
