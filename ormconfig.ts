// DataSource for the TypeORM CLI (e.g. `npx typeorm migration:show -d dist/ormconfig.js`).
import 'reflect-metadata';
import { loadConfig } from './src/kernel/config';
import { createDataSource } from './src/database/data-source';

const config = loadConfig();
if (!config.databaseUrl) {
  throw new Error('Set DATABASE_URL to use the TypeORM CLI (npm run migrate handles the embedded database)');
}
export default createDataSource(config.databaseUrl);
