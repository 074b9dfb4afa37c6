import { Arg, Int, Query, Resolver, UseMiddleware } from 'type-graphql';
import { AnonymousReadsFromReplica } from '../replica-reads';
import { NetworkName } from '../../../../kernel/network-name';
import { NETWORK_ARG } from '../explorer-input';
import { AddressLookup } from '../../views/addresses.types';
import type { AddressesService } from './addresses.service';

// DATABASE_READ_URL: a request without credentials reads the index from the replica.
@UseMiddleware(AnonymousReadsFromReplica)
@Resolver()
export class AddressesResolver {
  constructor(private readonly addresses: AddressesService) {}

  @Query(() => AddressLookup, { description: 'Balance, nonce, code and recent transactions of an address.' })
  address(
    @Arg('address', { description: 'Address: 0x and 40 hexadecimal characters, any letter case.' }) address: string,
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
    @Arg('limit', () => Int, { nullable: true, description: 'Number of transactions, 1 to 100; default 25.' })
    limit: number | null,
    @Arg('scan', () => Int, {
      nullable: true,
      description:
        'Read activity by scanning this many of the latest blocks over RPC (1 to 5000) instead of the index. ' +
        'Without it, the index is used while it is up to date, else the latest 500 blocks are scanned.',
    })
    scan: number | null,
  ): Promise<AddressLookup> {
    return this.addresses.address(address, network, limit, scan);
  }
}
