/** What the projects module offers the other modules (the only file they may import from it). */
import { domainManifest } from '../../kernel/domain-manifest';
import { ProjectEntity } from './project.entity';
import { ProjectsResolver } from './projects.resolver';
import { PROJECTS_ROUTES } from './projects.routes';
import type { ProjectService } from './projects.service';

export { ProjectService } from './projects.service';
export { Project } from './projects.types';

/** The projects domain: a developer's groups of contracts and keys. */
export const PROJECTS_MODULE = domainManifest<{ projects: ProjectService }>({
  name: 'projects',
  entities: [ProjectEntity],
  resolvers: [{ type: ProjectsResolver, build: (s) => new ProjectsResolver(s.projects) }],
  routes: PROJECTS_ROUTES,
});
