import { GraphQLJSON } from '../../kernel/json-scalar';
import { isAccepted } from '../../kernel/success-status';
import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../auth/request-context';
import type { GatewayService } from './gateway.service';
import { GatewayInvokeResult, GatewayQueryResult } from './gateway.types';

@Resolver()
export class GatewayResolver {
  constructor(private readonly gateway: GatewayService) {}

  @Mutation(() => GatewayQueryResult, {
    description: 'Calls a contract function without a transaction (eth_call); API key with scope read.',
  })
  queryContract(
    @Arg('id', () => ID, { description: 'Contract id.' }) id: string,
    @Arg('method', { description: 'Function name, or full signature when the name is overloaded.' }) method: string,
    @Arg('args', () => GraphQLJSON, {
      nullable: true,
      description: 'Positional arguments (array); big integers as strings.',
    })
    args: unknown,
    @Ctx() ctx: RequestContext,
  ): Promise<GatewayQueryResult> {
    return this.gateway.query(ctx.session, id, method, args);
  }

  /**
   * queryContract as a query (docs/api.md, "GraphQL specifics"): the same call, checks and analytics
   * (kind query), so that GraphQL clients can send reads over GET and cache them. GraphQL only: it
   * has no REST route of its own (gateway.routes.ts), REST's read is the query route.
   */
  @Query(() => GatewayQueryResult, {
    description:
      'The same read as queryContract (eth_call; API key with scope read), as a query: it can travel ' +
      'over GET and be cached by GraphQL clients.',
  })
  readContract(
    @Arg('id', () => ID, { description: 'Contract id.' }) id: string,
    @Arg('method', { description: 'Function name, or full signature when the name is overloaded.' }) method: string,
    @Arg('args', () => GraphQLJSON, {
      nullable: true,
      description: 'Positional arguments (array); big integers as strings.',
    })
    args: unknown,
    @Ctx() ctx: RequestContext,
  ): Promise<GatewayQueryResult> {
    return this.gateway.query(ctx.session, id, method, args);
  }

  @Mutation(() => GatewayInvokeResult, {
    description:
      'Sends a transaction to a contract function from the owner’s custodial wallet; API key with scope write. ' +
      'Irreversible once confirmed. Send an Idempotency-Key header to make retries safe, and ' +
      '`Prefer: respond-async` to be answered {transactionId, status: queued} once the checks pass.',
  })
  async invokeContract(
    @Arg('id', () => ID, { description: 'Contract id.' }) id: string,
    @Arg('method', { description: 'Function name, or full signature when the name is overloaded.' }) method: string,
    @Arg('args', () => GraphQLJSON, {
      nullable: true,
      description: 'Positional arguments (array); big integers as strings.',
    })
    args: unknown,
    @Arg('value', () => String, {
      nullable: true,
      description: 'Wei to send (payable functions only), decimal string.',
    })
    value: string | null,
    @Arg('gasLimit', () => String, { nullable: true, description: 'Gas limit; estimated when absent.' })
    gasLimit: string | null,
    @Arg('maxFeePerGas', () => String, {
      nullable: true,
      description: 'EIP-1559 fee cap (wei per gas), within the network’s and the key’s caps.',
    })
    maxFeePerGas: string | null,
    @Arg('maxPriorityFeePerGas', () => String, {
      nullable: true,
      description: 'EIP-1559 tip (wei per gas), within the network’s and the key’s caps.',
    })
    maxPriorityFeePerGas: string | null,
    @Arg('gasPrice', () => String, {
      nullable: true,
      description: 'Legacy gas price (wei per gas), within the network’s and the key’s caps.',
    })
    gasPrice: string | null,
    @Arg('timeoutSeconds', () => Int, {
      nullable: true,
      description: 'Not mined within this many seconds (1..604800): failed "timed out", its nonce repaired.',
    })
    timeoutSeconds: number | null,
    @Ctx() ctx: RequestContext,
  ): Promise<GatewayInvokeResult> {
    const result = await this.gateway.invoke(ctx.session, id, method, args, {
      value,
      gasLimit,
      maxFeePerGas,
      maxPriorityFeePerGas,
      gasPrice,
      timeoutSeconds,
      idempotencyKey: ctx.idempotencyKey,
      respondAsync: ctx.respondAsync,
    });
    // Answered before sending (this request's or the first one's, for an idempotent repeat): REST says 202.
    if (isAccepted(result)) ctx.accepted = true;
    return result;
  }
}
