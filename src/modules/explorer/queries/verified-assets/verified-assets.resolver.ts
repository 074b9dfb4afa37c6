import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import { NetworkName } from '../../../../schema/network';
import type { RequestContext } from '../../../../server/context';
import { VerifiedAssets } from './verified-assets.types';

@Resolver()
export class VerifiedAssetsResolver {
  @Query(() => VerifiedAssets, {
    description: 'Recently verified mainnet token assets (ERC-20, ERC-721, ERC-1155 deployed through the portal).',
  })
  recentVerifiedAssets(
    @Arg('limit', () => Int, { nullable: true, description: 'Number of assets, 1 to 100; default 10.' })
    limit: number | null,
    @Arg('network', () => NetworkName, {
      nullable: true,
      description: 'Optional; verified assets are mainnet only, so `testnet` is refused with MAINNET_ONLY.',
    })
    network: NetworkName | null,
    @Ctx() ctx: RequestContext,
  ): Promise<VerifiedAssets> {
    return ctx.services.explorer.verifiedAssets.recentVerifiedAssets(limit, network);
  }
}
