import { Arg, Ctx, ID, Int, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../auth/request-context';
import type { WalletService } from './wallets.service';
import { NetworkName } from '../../kernel/network-name';
import { WalletBalance, WalletHistory } from './wallets.types';

@Resolver()
export class WalletsResolver {
  constructor(private readonly wallets: WalletService) {}

  @Query(() => WalletBalance, { description: 'Native coin balance of any address (public).' })
  walletBalance(
    @Arg('address', { description: '0x-prefixed address, any case.' }) address: string,
    @Arg('network', () => NetworkName, { defaultValue: NetworkName.testnet, description: 'Network; default testnet.' })
    network: NetworkName,
  ): Promise<WalletBalance> {
    return this.wallets.balance(address, network);
  }

  @Query(() => WalletHistory, {
    description: "Transactions of the caller's custodial wallet, newest first (developer token, own id).",
  })
  walletHistory(
    @Arg('id', () => ID, { description: 'Developer id; must be the caller’s own.' }) id: string,
    @Arg('network', () => NetworkName, { defaultValue: NetworkName.testnet, description: 'Network; default testnet.' })
    network: NetworkName,
    @Arg('limit', () => Int, { nullable: true, description: 'Page size, 1 to 100; default 25.' }) limit: number | null,
    @Arg('cursor', () => String, { nullable: true, description: 'nextCursor of the previous page.' })
    cursor: string | null,
    @Ctx() ctx: RequestContext,
  ): Promise<WalletHistory> {
    return this.wallets.history(ctx.session, id, network, limit, cursor);
  }
}
