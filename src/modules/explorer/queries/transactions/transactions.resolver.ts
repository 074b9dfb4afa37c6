import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { NetworkName } from '../../../../schema/network';
import type { RequestContext } from '../../../../server/context';
import { NETWORK_ARG } from '../explorer-input';
import { TransactionLookup } from './transactions.types';

@Resolver()
export class TransactionsResolver {
  @Query(() => TransactionLookup, { description: 'A transaction with its receipt and logs, by hash.' })
  transaction(
    @Arg('hash', { description: 'Transaction hash: 0x and 64 hexadecimal characters.' }) hash: string,
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
    @Ctx() ctx: RequestContext,
  ): Promise<TransactionLookup> {
    return ctx.services.explorer.transactions.transaction(hash, network);
  }
}
