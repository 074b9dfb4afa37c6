import {
  Arg,
  Ctx,
  ID,
  Mutation,
  Query,
  Resolver,
  UseMiddleware,
  type MiddlewareInterface,
  type NextFn,
  type ResolverData,
} from 'type-graphql';
import { clientLimitKey } from '../../kernel/client-address';
import type { RequestLimit } from '../../kernel/rate-limit';
import type { RequestContext } from '../../auth/request-context';
import type { AccountService } from './accounts.service';
import { Developer, DeveloperDetails, EdsChallenge, EdsLoginInput, LoginResult, LogoutResult } from './accounts.types';

/** LOGIN_RATE_LIMIT per client address (an IPv6 client's /64); runs before argument validation, so malformed attempts count too. */
export class LoginRateLimit implements MiddlewareInterface<RequestContext> {
  constructor(private readonly limit: RequestLimit) {}

  async use({ context }: ResolverData<RequestContext>, next: NextFn): Promise<unknown> {
    await this.limit.consume(clientLimitKey(context.session.clientIp));
    return next();
  }
}

@Resolver()
export class AccountsResolver {
  constructor(private readonly accounts: AccountService) {}

  @Query(() => Developer, { description: 'The current developer (developer token required).' })
  me(@Ctx() ctx: RequestContext): Promise<Developer> {
    return this.accounts.me(ctx.session);
  }

  @Query(() => DeveloperDetails, {
    description: "A developer's profile with wallets and projects; only the caller's own id is accepted.",
  })
  developer(
    @Arg('id', () => ID, { description: 'Developer id; must be the caller’s own.' }) id: string,
    @Ctx() ctx: RequestContext,
  ): Promise<DeveloperDetails> {
    return this.accounts.developer(ctx.session, id);
  }

  @UseMiddleware(LoginRateLimit)
  @Mutation(() => EdsChallenge, { description: 'Starts an EDS login: returns a single-use nonce to sign.' })
  edsChallenge(): Promise<EdsChallenge> {
    return this.accounts.createChallenge();
  }

  @UseMiddleware(LoginRateLimit)
  @Mutation(() => LoginResult, {
    description: 'Logs in with an electronic digital signature over a challenge nonce; returns a 12-hour token.',
  })
  edsLogin(
    @Arg('input', () => EdsLoginInput, { description: 'Challenge id and signature (or CMS).' }) input: EdsLoginInput,
  ): Promise<LoginResult> {
    return this.accounts.login(input);
  }

  @Mutation(() => LogoutResult, {
    description: 'Logs out: every token of the caller issued up to now stops working, on every instance.',
  })
  logout(@Ctx() ctx: RequestContext): Promise<LogoutResult> {
    return this.accounts.logout(ctx.session);
  }
}
