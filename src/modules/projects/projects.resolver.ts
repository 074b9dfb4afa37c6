import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { RequestContext } from '../../server/context';
import { CreateProjectInput, Project } from './projects.types';

@Resolver()
export class ProjectsResolver {
  @Mutation(() => Project, { description: 'Creates a project owned by the caller (developer token required).' })
  createProject(
    @Arg('input', () => CreateProjectInput, { description: 'Name and optional description.' })
    input: CreateProjectInput,
    @Ctx() ctx: RequestContext,
  ): Promise<Project> {
    return ctx.services.projects.create(ctx.credentials, input);
  }
}
