import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Login hardening: each developer is bound to the trust anchor its logins chain to (recorded
 * at the next login for developers created before), and logout revokes every earlier token.
 */
export class LoginBinding1763900000000 implements MigrationInterface {
  name = 'LoginBinding1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE developers ADD COLUMN IF NOT EXISTS trust_anchor text`);
    await q.query(`ALTER TABLE developers ADD COLUMN IF NOT EXISTS token_generation integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE developers ADD COLUMN IF NOT EXISTS tokens_revoked_before timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE developers DROP COLUMN IF EXISTS tokens_revoked_before`);
    await q.query(`ALTER TABLE developers DROP COLUMN IF EXISTS token_generation`);
    await q.query(`ALTER TABLE developers DROP COLUMN IF EXISTS trust_anchor`);
  }
}
