import { Arg, Ctx, ID, Mutation, Query, Resolver, UseMiddleware, type MiddlewareFn } from 'type-graphql';
import type { RequestContext } from '../../server/context';
import { Developer, DeveloperDetails, EdsChallenge, EdsLoginInput, LoginResult, LogoutResult } from './accounts.types';

/** LOGIN_RATE_LIMIT per client address; runs before argument validation, so malformed attempts count too. */
const loginRateLimit: MiddlewareFn<RequestContext> = async ({ context }, next) => {
  await context.services.limits.login.consume(context.clientIp);
  return next();
};

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

  @UseMiddleware(loginRateLimit)
  @Mutation(() => EdsChallenge, { description: 'Starts an EDS login: returns a single-use nonce to sign.' })
  edsChallenge(@Ctx() ctx: RequestContext): Promise<EdsChallenge> {
    return ctx.services.accounts.createChallenge();
  }

  @UseMiddleware(loginRateLimit)
  @Mutation(() => LoginResult, {
    description: 'Logs in with an electronic digital signature over a challenge nonce; returns a 12-hour token.',
  })
  edsLogin(
    @Arg('input', () => EdsLoginInput, { description: 'Challenge id and signature (or CMS).' }) input: EdsLoginInput,
    @Ctx() ctx: RequestContext,
  ): Promise<LoginResult> {
    return ctx.services.accounts.login(input);
  }

  @Mutation(() => LogoutResult, {
    description: 'Logs out: every token of the caller issued up to now stops working, on every instance.',
  })
  logout(@Ctx() ctx: RequestContext): Promise<LogoutResult> {
    return ctx.services.accounts.logout(ctx.credentials);
  }
}
