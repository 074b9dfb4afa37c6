import { Arg, Ctx, ID, Int, Query, Resolver, Root, Subscription } from 'type-graphql';
import type { RequestContext } from '../../auth/request-context';
import { FEEDS } from '../../kernel/event-bus';
import type { ContractEventsService, ContractEventsSubscription } from './events.service';
import { ContractEvent, ContractEventPage } from './events.types';

const EVENT_ARG = {
  nullable: true,
  description:
    'Only this event: its name when no other event of the ABI shares it, else its full signature, e.g. `Transfer(address,address,uint256)`.',
} as const;

/** Decoded contract events: the paged list and the replay-then-follow subscription. */
@Resolver()
export class ContractEventsResolver {
  constructor(private readonly events: ContractEventsService) {}

  @Query(() => ContractEventPage, {
    description:
      'Events a deployed contract emitted, decoded with its ABI, oldest first by (blockNumber, logIndex), from the ' +
      'explorer index. The owner’s developer token, or an API key with the `read` scope allowed on the contract.',
  })
  contractEvents(
    @Arg('id', () => ID, { description: 'Contract id.' }) id: string,
    @Arg('event', () => String, EVENT_ARG) event: string | null,
    @Arg('fromBlock', () => Int, { nullable: true, description: 'First block, inclusive.' }) fromBlock: number | null,
    @Arg('toBlock', () => Int, { nullable: true, description: 'Last block, inclusive.' }) toBlock: number | null,
    @Arg('limit', () => Int, { nullable: true, description: 'Page size, 1 to 100; default 25.' }) limit: number | null,
    @Arg('cursor', () => String, { nullable: true, description: 'The nextCursor of the previous page.' })
    cursor: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<ContractEventPage> {
    return this.events.list(ctx.session, id, { event, fromBlock, toBlock, limit, cursor });
  }

  @Subscription(() => ContractEvent, {
    name: 'contractEvents',
    description:
      'Every matching event from `fromBlock` (default: the next block the index takes in), then each new one as the ' +
      'explorer index takes in its block: in (blockNumber, logIndex) order, none missed or repeated. Same credentials ' +
      'as the query, in connectionParams.',
    // Each subscriber gets its own feed, read from the index (src/schema/subscriptions.ts).
    topics: FEEDS.contractEvents,
    topicId: ({ args, context }): ContractEventsSubscription => {
      const a = args as { contractId: string; event?: string | null; fromBlock?: number | null };
      return {
        session: (context as RequestContext).session,
        contractId: a.contractId,
        event: a.event,
        fromBlock: a.fromBlock,
      };
    },
  })
  contractEventsFeed(
    @Root() event: ContractEvent,
    @Arg('contractId', () => ID, { description: 'Contract id.' }) _contractId: string,
    @Arg('event', () => String, EVENT_ARG) _event: string | null,
    @Arg('fromBlock', () => Int, {
      nullable: true,
      description: 'First block to replay, inclusive; default: the next block the index takes in.',
    })
    _fromBlock: number | null,
  ): ContractEvent {
    return event;
  }
}
