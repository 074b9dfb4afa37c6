import { MODULES } from '../modules';

/** Every TypeORM entity of the service: each domain's (its manifest's `entities`), in MODULES order. */
export const ENTITIES = MODULES.flatMap((m) => m.entities);
