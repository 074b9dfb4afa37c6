import { Arg, Query, Resolver, UseMiddleware } from 'type-graphql';
import { AnonymousReadsFromReplica } from '../replica-reads';
import { NetworkName } from '../../../../kernel/network-name';
import { NETWORK_ARG } from '../explorer-input';
import { NetworkStatus } from '../../views/network-status.types';
import type { NetworkStatusService } from './network-status.service';

// DATABASE_READ_URL: a request without credentials reads the index from the replica.
@UseMiddleware(AnonymousReadsFromReplica)
@Resolver()
export class NetworkStatusResolver {
  constructor(private readonly service: NetworkStatusService) {}

  @Query(() => NetworkStatus, {
    description: 'Last block, validators, average block time, RPC health and index progress of a network.',
  })
  networkStatus(@Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null): Promise<NetworkStatus> {
    return this.service.networkStatus(network);
  }
}
