import { AccountsResolver } from '../modules/accounts/accounts.resolver';
import { ExplorerResolver } from '../modules/explorer/explorer.resolver';
import { ProjectsResolver } from '../modules/projects/projects.resolver';
import { ServerTimeResolver } from '../modules/system/server-time.resolver';

/** Every resolver of the schema; each lives beside its domain in src/modules. */
export const RESOLVERS = [AccountsResolver, ProjectsResolver, ServerTimeResolver, ExplorerResolver] as const;
