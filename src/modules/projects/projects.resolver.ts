import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { RequestContext } from '../../auth/request-context';
import type { ProjectService } from './projects.service';
import { CreateProjectInput, Project } from './projects.types';

@Resolver()
export class ProjectsResolver {
  constructor(private readonly projects: ProjectService) {}

  @Mutation(() => Project, { description: 'Creates a project owned by the caller (developer token required).' })
  createProject(
    @Arg('input', () => CreateProjectInput, { description: 'Name and optional description.' })
    input: CreateProjectInput,
    @Ctx() ctx: RequestContext,
  ): Promise<Project> {
    return this.projects.create(ctx.session, input);
  }
}
