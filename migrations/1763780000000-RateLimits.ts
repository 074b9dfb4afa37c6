import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Counters of the rate limits every instance shares (rate-limiter-flexible's PostgreSQL layout). */
export class RateLimits1763780000000 implements MigrationInterface {
  name = 'RateLimits1763780000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE rate_limits (
        key varchar(255) PRIMARY KEY,
        points integer NOT NULL DEFAULT 0,
        expire bigint
      )
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE rate_limits');
  }
}
