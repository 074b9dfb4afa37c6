import type { DataSource } from 'typeorm';

// Read model of the names beside the usage rollup (docs/architecture.md, "Tables: one owner each"):
// the contracts' and the keys' names, looked up in their owners' tables.

/** The names of the contracts with these ids. */
export async function contractNames(ds: DataSource, ids: string[]): Promise<Array<{ id: string; name: string }>> {
  if (ids.length === 0) return [];
  return (await ds.query('SELECT id, name FROM contracts WHERE id = ANY($1::uuid[])', [ids])) as Array<{
    id: string;
    name: string;
  }>;
}

/** The names and prefixes of the API keys with these ids. */
export async function keyNames(
  ds: DataSource,
  ids: string[],
): Promise<Array<{ id: string; name: string | null; prefix: string }>> {
  if (ids.length === 0) return [];
  return (await ds.query('SELECT id, name, prefix FROM api_keys WHERE id = ANY($1::uuid[])', [ids])) as Array<{
    id: string;
    name: string | null;
    prefix: string;
  }>;
}
