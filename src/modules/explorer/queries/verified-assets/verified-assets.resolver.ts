import { Arg, Int, Query, Resolver } from 'type-graphql';
import { NetworkName } from '../../../../kernel/network-name';
import { VerifiedAssets } from '../../views/verified-assets.types';
import type { VerifiedAssetsService } from './verified-assets.service';

@Resolver()
export class VerifiedAssetsResolver {
  constructor(private readonly verifiedAssets: VerifiedAssetsService) {}

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
  ): Promise<VerifiedAssets> {
    return this.verifiedAssets.recentVerifiedAssets(limit, network);
  }
}
