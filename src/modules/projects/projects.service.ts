import type { DataSource } from 'typeorm';
import { AppError } from '../../kernel/errors/app-error';
import type { Session } from '../../auth/session';
import { ProjectEntity } from './project.entity';
import type { CreateProjectInput, Project } from './projects.types';

const toProject = (p: ProjectEntity): Project => ({
  id: p.id,
  name: p.name,
  description: p.description,
  ownerId: p.ownerId,
  createdAt: p.createdAt,
});

/** Projects: logical groups of a developer's contracts and keys. */
export class ProjectService {
  constructor(private readonly ds: DataSource) {}

  async create(session: Session, input: CreateProjectInput): Promise<Project> {
    const owner = await session.developer();
    const name = input.name.trim();
    if (name.length < 1 || name.length > 100) {
      throw new AppError('VALIDATION_FAILED', 'name must be 1 to 100 characters', { field: 'name' });
    }
    const row = await this.ds.getRepository(ProjectEntity).save({
      ownerId: owner.id,
      name,
      description: input.description?.trim() || null,
    });
    return toProject(row);
  }

  async listOwnedBy(ownerId: string): Promise<Project[]> {
    const rows = await this.ds.getRepository(ProjectEntity).find({ where: { ownerId }, order: { createdAt: 'ASC' } });
    return rows.map(toProject);
  }

  /** A project of the caller (only its id is read), or 404 (someone else's project is not revealed). */
  async requireOwned(owner: { id: string }, projectId: string): Promise<Project> {
    const row = await this.ds
      .getRepository(ProjectEntity)
      .createQueryBuilder('p')
      .where('p.id::text = :projectId AND p.owner_id = :ownerId', { projectId, ownerId: owner.id })
      .getOne();
    if (!row) throw new AppError('NOT_FOUND', 'No such project');
    return toProject(row);
  }
}
