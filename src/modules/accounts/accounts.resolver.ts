import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../server/context';
import { Developer, DeveloperDetails, EdsChallenge, EdsLoginInput, LoginResult } from './accounts.types';

@Resolver()
export class AccountsResolver {
  @Query(() => Developer, { description: 'The current developer (developer token required).' })
  me(@Ctx() ctx: RequestContext): Promise<Developer> {
    return ctx.services.accounts.me(ctx.credentials);
  }

  @Query(() => DeveloperDetails, {
    description: "A developer's profile with wallets and projects; only the caller's own id is accepted.",
  })
  developer(
    @Arg('id', () => ID, { description: 'Developer id; must be the caller’s own.' }) id: string,
    @Ctx() ctx: RequestContext,
  ): Promise<DeveloperDetails> {
    return ctx.services.accounts.developer(ctx.credentials, id);
  }

  @Mutation(() => EdsChallenge, { description: 'Starts an EDS login: returns a single-use nonce to sign.' })
  edsChallenge(@Ctx() ctx: RequestContext): Promise<EdsChallenge> {
    return ctx.services.accounts.createChallenge();
  }

  @Mutation(() => LoginResult, {
    description: 'Logs in with an electronic digital signature over a challenge nonce; returns a 12-hour token.',
  })
  edsLogin(
    @Arg('input', () => EdsLoginInput, { description: 'Challenge id and signature (or CMS).' }) input: EdsLoginInput,
    @Ctx() ctx: RequestContext,
  ): Promise<LoginResult> {
    return ctx.services.accounts.login(input);
  }
}
