import { Accounts1763760000000 } from './1763760000000-Accounts';

/** Every migration, oldest first; the DataSource runs exactly these. */
export const MIGRATIONS = [Accounts1763760000000];
