import { Arg, Query, Resolver } from 'type-graphql';
import { NetworkName } from '../../../../kernel/network-name';
import { NETWORK_ARG } from '../explorer-input';
import { TransactionLookup } from './transactions.types';
import type { TransactionsService } from './transactions.service';

@Resolver()
export class TransactionsResolver {
  constructor(private readonly transactions: TransactionsService) {}

  @Query(() => TransactionLookup, { description: 'A transaction with its receipt and logs, by hash.' })
  transaction(
    @Arg('hash', { description: 'Transaction hash: 0x and 64 hexadecimal characters.' }) hash: string,
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
  ): Promise<TransactionLookup> {
    return this.transactions.transaction(hash, network);
  }
}
