import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { RequestContext } from '../../auth/request-context';
import type { FaucetService } from './faucet.service';
import { NetworkName } from '../../kernel/network-name';
import { FaucetDrip } from './faucet.types';

@Resolver()
export class FaucetResolver {
  constructor(private readonly faucet: FaucetService) {}

  @Mutation(() => FaucetDrip, {
    description:
      "Sends 10 test coins to `to` (default: the caller's custodial wallet); 5 per UTC day and developer whatever `to` is, testnet only (developer token).",
  })
  faucetDrip(
    @Arg('network', () => NetworkName, { defaultValue: NetworkName.testnet, description: 'Must be testnet.' })
    network: NetworkName,
    @Ctx() ctx: RequestContext,
    @Arg('to', () => String, {
      nullable: true,
      description: "Address that receives the coins, any case (default: the caller's custodial wallet).",
    })
    to?: string | null,
  ): Promise<FaucetDrip> {
    return this.faucet.drip(ctx.session, network, to ?? undefined);
  }
}
