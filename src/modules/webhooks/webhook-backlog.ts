import type { DataSource } from 'typeorm';

/** What the outbox still has to send (docs/api.md "Operations", `/metrics`). */
export interface WebhookBacklog {
  pending: number;
  /** Age of the oldest pending message in seconds; 0 when none is pending. */
  oldestPendingSeconds: number;
}

/** Reads the outbox's backlog: one index-friendly aggregate over the pending messages. */
export async function webhookBacklog(ds: DataSource): Promise<WebhookBacklog> {
  const [row] = (await ds.query(
    `SELECT count(*)::int AS pending,
            COALESCE(EXTRACT(EPOCH FROM now() - min(created_at)), 0)::float8 AS oldest
       FROM webhook_deliveries WHERE status = 'pending'`,
  )) as Array<{ pending: number; oldest: number }>;
  return { pending: row?.pending ?? 0, oldestPendingSeconds: row?.oldest ?? 0 };
}
