import { Arg, Ctx, ID, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../auth/request-context';
import type { TransactionService } from './transactions.service';
import { GatewayTransaction } from './transactions.types';

@Resolver()
export class TransactionsResolver {
  constructor(private readonly transactions: TransactionService) {}

  @Query(() => GatewayTransaction, {
    description:
      'A transaction record (invoke, deploy, faucet drip); the developer’s token or the API key that sent it. ' +
      'Anyone else gets NOT_FOUND.',
  })
  gatewayTransaction(
    @Arg('id', () => ID, { description: 'Transaction record id (transactionId of an invoke).' }) id: string,
    @Ctx() ctx: RequestContext,
  ): Promise<GatewayTransaction> {
    return this.transactions.get(ctx.session, id);
  }
}
