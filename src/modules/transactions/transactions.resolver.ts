import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { NetworkName } from '../../kernel/network-name';
import type { RequestContext } from '../../auth/request-context';
import type { TransactionRecordsService } from './transactions.service';
import { GatewayTransaction, GatewayTransactionPage } from './transactions.types';

@Resolver()
export class TransactionRecordsResolver {
  constructor(private readonly transactions: TransactionRecordsService) {}

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

  @Query(() => GatewayTransactionPage, {
    description: 'The developer’s transaction records (invokes, deploys, faucet drips), newest first; own token.',
  })
  developerTransactions(
    @Arg('id', () => ID, { description: 'Developer id (your own).' }) id: string,
    @Arg('network', () => NetworkName, { nullable: true, description: 'Only this network.' })
    network: NetworkName | null,
    @Arg('status', () => String, {
      nullable: true,
      description: 'Only this status: queued, pending, success, reverted, failed or cancelled.',
    })
    status: string | null,
    @Arg('kind', () => String, { nullable: true, description: 'Only this kind: invoke, deploy or faucet.' })
    kind: string | null,
    @Arg('contractId', () => ID, { nullable: true, description: 'Only the records of this contract.' })
    contractId: string | null,
    @Arg('limit', () => Int, { nullable: true, description: 'Page size, 1..100 (default 25).' }) limit: number | null,
    @Arg('cursor', () => String, { nullable: true, description: 'nextCursor of the previous page.' })
    cursor: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<GatewayTransactionPage> {
    return this.transactions.list(ctx.session, id, { network, status, kind, contractId }, limit, cursor);
  }

  @Mutation(() => GatewayTransaction, {
    description:
      'Cancels a transaction: a queued one (nothing signed yet) becomes cancelled, no nonce used; a pending one ' +
      'is replaced at its nonce by a 0-value transfer to itself, cancelled once that is mined (INVALID_STATE where ' +
      'the network cannot replace it, e.g. a zero gas price). Mined or ended ones are INVALID_STATE.',
  })
  cancelTransaction(
    @Arg('id', () => ID, { description: 'Transaction record id.' }) id: string,
    @Ctx() ctx: RequestContext,
  ): Promise<GatewayTransaction> {
    return this.transactions.cancel(ctx.session, id);
  }

  @Mutation(() => GatewayTransaction, {
    description:
      'Sends a failed invoke (never mined) again under the same record, with the key that sent it and its ' +
      'policies and spend caps as they are now; answered once sent (pending). Other statuses are INVALID_STATE.',
  })
  retryTransaction(
    @Arg('id', () => ID, { description: 'Transaction record id.' }) id: string,
    @Ctx() ctx: RequestContext,
  ): Promise<GatewayTransaction> {
    return this.transactions.retry(ctx.session, id);
  }
}
