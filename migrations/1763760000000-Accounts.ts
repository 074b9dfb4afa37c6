import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Developers, their custodial wallets, projects and EDS login challenges. */
export class Accounts1763760000000 implements MigrationInterface {
  name = 'Accounts1763760000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE developers (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        identity_key text NOT NULL UNIQUE,
        serial_number text,
        display_name text NOT NULL,
        subject text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_login_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE custodial_wallets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        developer_id uuid NOT NULL UNIQUE REFERENCES developers(id) ON DELETE CASCADE,
        address text NOT NULL UNIQUE,
        encrypted_key bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE projects (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id uuid NOT NULL REFERENCES developers(id) ON DELETE CASCADE,
        name text NOT NULL,
        description text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX projects_owner_idx ON projects (owner_id, created_at)`);
    await q.query(`
      CREATE TABLE login_challenges (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        nonce text NOT NULL,
        expires_at timestamptz NOT NULL,
        consumed_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX login_challenges_expires_idx ON login_challenges (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE login_challenges`);
    await q.query(`DROP TABLE projects`);
    await q.query(`DROP TABLE custodial_wallets`);
    await q.query(`DROP TABLE developers`);
  }
}
