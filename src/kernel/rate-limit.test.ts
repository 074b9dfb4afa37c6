import type { DataSource } from 'typeorm';
import { createTestDatabase } from '../../tests/kit/stack';
import { createDataSource, runMigrations } from '../database/data-source';
import { AppError } from './errors/app-error';
import { createRateLimits } from './rate-limit';

describe('rate limits', () => {
  let db: { url: string; drop(): Promise<void> };
  let a: DataSource;
  let b: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase();
    a = createDataSource(db.url);
    await a.initialize();
    await runMigrations(a);
    b = createDataSource(db.url);
    await b.initialize();
  });
  afterAll(async () => {
    await a?.destroy();
    await b?.destroy();
    await db?.drop();
  });

  const settings = { publicPerSecond: 5, loginPerMinute: 4, developerPerSecond: 5 };

  it('counts logins of one address over every instance (PostgreSQL), with Retry-After', async () => {
    const first = createRateLimits(settings, a);
    const second = createRateLimits(settings, b);
    for (const limits of [first, second, first, second]) await limits.login.consume('198.51.100.1');
    const refused = await second.login.consume('198.51.100.1').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe('RATE_LIMITED');
    expect(Number((refused as AppError).headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
    await expect(first.login.consume('198.51.100.2')).resolves.toBeUndefined();
  });

  it('counts per-second limits in memory, per instance, and 0 turns a limit off', async () => {
    const limits = createRateLimits({ ...settings, publicPerSecond: 2 });
    await limits.public.consume('x');
    await limits.public.consume('x');
    await expect(limits.public.consume('x')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    const off = createRateLimits({ publicPerSecond: 0, loginPerMinute: 0, developerPerSecond: 0 });
    expect(off.public.enabled).toBe(false);
    for (let i = 0; i < 50; i++) await off.login.consume('x');
  });
});
