import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Key policies and rotation (docs/api.md, "API keys": policies, rotation): the allowlists, expiry,
 * per-key rate and daily quota of each key, the secret a rotation replaced with its last valid
 * moment, and each key's requests per UTC day (counted exactly by every instance together).
 */
export class KeyPolicies1764900000000 implements MigrationInterface {
  name = 'KeyPolicies1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE api_keys
        ADD COLUMN contract_ids uuid[],
        ADD COLUMN allowed_origins text[],
        ADD COLUMN allowed_ips text[],
        ADD COLUMN allowed_methods text[],
        ADD COLUMN expires_at timestamptz,
        ADD COLUMN rate_limit_per_second integer CHECK (rate_limit_per_second >= 1),
        ADD COLUMN daily_quota integer CHECK (daily_quota >= 1),
        ADD COLUMN previous_key_hash text UNIQUE,
        ADD COLUMN previous_key_valid_until timestamptz`);
    await q.query(`UPDATE api_keys SET contract_ids = ARRAY[contract_id] WHERE contract_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE api_key_daily_requests (
        key_id uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
        day date NOT NULL,
        requests integer NOT NULL,
        PRIMARY KEY (key_id, day)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_key_daily_requests`);
    await q.query(`
      ALTER TABLE api_keys
        DROP COLUMN contract_ids,
        DROP COLUMN allowed_origins,
        DROP COLUMN allowed_ips,
        DROP COLUMN allowed_methods,
        DROP COLUMN expires_at,
        DROP COLUMN rate_limit_per_second,
        DROP COLUMN daily_quota,
        DROP COLUMN previous_key_hash,
        DROP COLUMN previous_key_valid_until`);
  }
}
