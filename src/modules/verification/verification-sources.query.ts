import type { DataSource } from 'typeorm';
import type { Network } from '../../kernel/network';

// Read models of verification's sources (docs/architecture.md, "Tables: one owner each"): a portal
// contract's record (the contracts domain's table) and a contract's creation transaction in the
// explorer's index.

type Row = Record<string, unknown>;

/** The newest deployed portal contract at `address`: its compiled artifacts and sources. */
export async function portalRecordAt(ds: DataSource, network: Network, address: string): Promise<Row | undefined> {
  const rows: Row[] = await ds.query(
    `SELECT contract_name, source_file, abi, bytecode, deployed_bytecode, immutable_references, sources,
            constructor_args, compiler, deploy_tx_hash
     FROM contracts WHERE network = $1 AND address = ANY($2::text[]) AND status = 'deployed'
     ORDER BY deployed_at DESC NULLS LAST LIMIT 1`,
    [network, [address, address.toLowerCase()]],
  );
  return rows[0];
}

/** The transaction that created `address`, as the explorer indexed it. */
export async function indexedCreationOf(ds: DataSource, network: Network, address: string): Promise<Row | undefined> {
  const rows: Row[] = await ds.query(
    `SELECT hash, from_address, to_address, input FROM explorer_transactions
     WHERE network = $1 AND contract_address = ANY($2::text[]) LIMIT 1`,
    [network, [address, address.toLowerCase()]],
  );
  return rows[0];
}
