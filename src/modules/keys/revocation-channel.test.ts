import type { Client } from 'pg';
import { DataSource } from 'typeorm';
import { createTestDatabase } from '../../../tests/kit/stack';
import { createLogger } from '../../kernel/logger';
import { LISTENER_APPLICATION_PREFIX, REVOCATION_CHANNEL, RevocationChannel } from './revocation-channel';

/**
 * Two instances on one database, each with its own revocation channel: the revoking one waits
 * until the other has forgotten the key, even when the other hears the notification late.
 */
describe('API key revocation across instances', () => {
  let db: { url: string; drop(): Promise<void> };
  let ds: DataSource;
  const channels: RevocationChannel[] = [];
  const forgotten = new Map<RevocationChannel, string[]>();

  const instance = async () => {
    const heard: string[] = [];
    const channel = new RevocationChannel(
      db.url,
      createLogger('silent'),
      (h) => heard.push(h),
      () => undefined,
    );
    await channel.start();
    channels.push(channel);
    forgotten.set(channel, heard);
    return channel;
  };
  /**
   * Keeps the instance's LISTEN connection busy: PostgreSQL delivers notifications only to an idle
   * one. Resolves once the sleep runs; `done` once it is over.
   */
  const stall = async (channel: RevocationChannel, seconds: number) => {
    const done = (channel as unknown as { client: Client }).client.query(`SELECT pg_sleep(${seconds})`);
    const name = `${LISTENER_APPLICATION_PREFIX}${channel.instanceId}`;
    for (;;) {
      const rows = (await ds.query(
        `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND state = 'active' AND query LIKE 'SELECT pg_sleep%'`,
        [name],
      )) as unknown[];
      if (rows.length > 0) return { done };
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const revoke = async (channel: RevocationChannel, hash: string, timeoutMs = 2000) => {
    const acks = channel.expect(hash);
    const [{ now }] = (await ds.query('SELECT now() AS now')) as Array<{ now: Date }>;
    await ds.query('SELECT pg_notify($1, $2)', [REVOCATION_CHANNEL, hash]);
    return acks.settled(ds, timeoutMs, now);
  };

  const until = async (condition: () => boolean) => {
    for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(condition()).toBe(true);
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    ds = new DataSource({ type: 'postgres', url: db.url });
    await ds.initialize();
  });
  afterAll(async () => {
    await Promise.all(channels.map((c) => c.stop()));
    await ds.destroy();
    await db.drop();
  });

  it('answers only once a slow instance has forgotten the key', async () => {
    const revoker = await instance();
    const slow = await instance();
    // The stall starts after this instant and lasts 0.6 s: the revocation cannot answer before it ends.
    const stallFrom = Date.now();
    const stalled = (await stall(slow, 0.6)).done;
    const { missing } = await revoke(revoker, 'a'.repeat(64));
    expect(missing).toEqual([]);
    expect(Date.now() - stallFrom).toBeGreaterThanOrEqual(550);
    expect(forgotten.get(slow)).toEqual(['a'.repeat(64)]);
    expect(forgotten.get(revoker)).toEqual(['a'.repeat(64)]);
    await stalled;
  });

  it('names the instances that did not answer in time', async () => {
    const revoker = await instance();
    const frozen = await instance();
    const stalled = (await stall(frozen, 2)).done;
    const { missing } = await revoke(revoker, 'b'.repeat(64), 500);
    expect(missing).toEqual([frozen.instanceId]);
    expect(forgotten.get(frozen)).not.toContain('b'.repeat(64));
    await stalled;
  });

  it('does not wait for an instance whose connection is gone, nor for its new connection', async () => {
    const revoker = await instance();
    const leaving = await instance();
    const stalled = (await stall(leaving, 5)).done.catch(() => undefined);
    const started = Date.now();
    const outcome = revoke(revoker, 'c'.repeat(64), 4000);
    await new Promise((r) => setTimeout(r, 100));
    // The instance's connection dies (it reconnects a second later).
    await ds.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [
      `${LISTENER_APPLICATION_PREFIX}${leaving.instanceId}`,
    ]);
    expect((await outcome).missing).toEqual([]);
    expect(Date.now() - started).toBeLessThan(3000);
    await stalled;
    // An instance that reconnects after a notification missed it, but its cache was emptied when
    // it lost its connection: a revocation that settles after the reconnection does not wait for it.
    const acks = revoker.expect('d'.repeat(64));
    const [{ now }] = (await ds.query('SELECT now() AS now')) as Array<{ now: Date }>;
    await ds.query('SELECT pg_notify($1, $2)', [REVOCATION_CHANNEL, 'd'.repeat(64)]);
    await until(() => leaving.isListening);
    expect((await acks.settled(ds, 2000, now)).missing).toEqual([]);
    // Stopped while waiting to reconnect: it stays stopped.
    await ds.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, [
      `${LISTENER_APPLICATION_PREFIX}${leaving.instanceId}`,
    ]);
    await until(() => !leaving.isListening);
    await leaving.stop();
    await new Promise((r) => setTimeout(r, 1300));
    expect(
      await ds.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1`, [
        `${LISTENER_APPLICATION_PREFIX}${leaving.instanceId}`,
      ]),
    ).toEqual([]);
  });
});
