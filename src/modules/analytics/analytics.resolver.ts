import { Arg, Ctx, ID, Int, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../../auth/request-context';
import type { AnalyticsService } from './analytics.service';
import { Analytics } from './analytics.types';

@Resolver()
export class AnalyticsResolver {
  constructor(private readonly service: AnalyticsService) {}

  @Query(() => Analytics, {
    description: "Gateway usage of the caller's keys over the last `days` days (developer token, own id).",
  })
  analytics(
    @Arg('id', () => ID, { description: 'Developer id; must be the caller’s own.' }) id: string,
    @Arg('days', () => Int, { nullable: true, description: 'Window in days, 1 to 90; default 14.' })
    days: number | null,
    @Ctx() ctx: RequestContext,
  ): Promise<Analytics> {
    return this.service.analytics(ctx.session, id, days);
  }
}
