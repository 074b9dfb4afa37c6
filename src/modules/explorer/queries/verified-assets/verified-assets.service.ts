import { AppError } from '../../../../kernel/errors/app-error';
import type { NetworkName } from '../../../../kernel/network-name';
import { boundedInt, LIMITS } from '../explorer-input';
import type { PortalContracts } from '../../portal/portal-contracts';
import type { VerifiedAssets } from '../../views/verified-assets.types';

/** Verified assets: mainnet tokens deployed through the portal whose code on chain matches their source. */
export class VerifiedAssetsService {
  constructor(private readonly portal: PortalContracts) {}

  async recentVerifiedAssets(
    limitArg: number | null | undefined,
    networkArg: NetworkName | null | undefined,
  ): Promise<VerifiedAssets> {
    if (networkArg === 'testnet') {
      throw new AppError('MAINNET_ONLY', 'Verified assets exist on mainnet only', { network: 'testnet' });
    }
    const limit = boundedInt('limit', limitArg, LIMITS.verifiedAssets);
    const assets = await this.portal.recentAssets(limit);
    return { network: 'mainnet' as NetworkName, assets };
  }
}
