import { Arg, Query, Resolver, UseMiddleware } from 'type-graphql';
import { AnonymousReadsFromReplica } from '../replica-reads';
import { NetworkName } from '../../../../kernel/network-name';
import { NETWORK_ARG } from '../explorer-input';
import { TransactionLookup } from '../../views/transactions.types';
import type { ExplorerTransactionsService } from './transactions.service';

// DATABASE_READ_URL: a request without credentials reads the index from the replica.
@UseMiddleware(AnonymousReadsFromReplica)
@Resolver()
export class ExplorerTransactionsResolver {
  constructor(private readonly transactions: ExplorerTransactionsService) {}

  @Query(() => TransactionLookup, { description: 'A transaction with its receipt and logs, by hash.' })
  transaction(
    @Arg('hash', { description: 'Transaction hash: 0x and 64 hexadecimal characters.' }) hash: string,
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
  ): Promise<TransactionLookup> {
    return this.transactions.transaction(hash, network);
  }
}
