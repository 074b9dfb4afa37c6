import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { NetworkName } from '../../../../schema/network';
import type { RequestContext } from '../../../../server/context';
import { NETWORK_ARG } from '../explorer-input';
import { NetworkStatus } from './network-status.types';

@Resolver()
export class NetworkStatusResolver {
  @Query(() => NetworkStatus, {
    description: 'Last block, validators, average block time, RPC health and index progress of a network.',
  })
  networkStatus(
    @Arg('network', () => NetworkName, NETWORK_ARG) network: NetworkName | null,
    @Ctx() ctx: RequestContext,
  ): Promise<NetworkStatus> {
    return ctx.services.explorer.networkStatus.networkStatus(network);
  }
}
