/** What the projects module offers the other modules (the only file they may import from it). */
export { ProjectService } from './projects.service';
export { Project } from './projects.types';
