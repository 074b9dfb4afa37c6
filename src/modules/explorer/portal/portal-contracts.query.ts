import type { DataSource } from 'typeorm';
import type { Network } from '../../../kernel/network';

// Read model of the portal's contracts as the explorer sees them (docs/architecture.md, "Tables:
// one owner each"): the contracts domain's deployed contracts, the verification domain's verified
// contracts, and the explorer's own checks of the contracts' code on chain beside them.

/** A contract's columns, as the queries answer them. */
export interface ContractRow {
  id: string;
  name: string;
  network: Network;
  address: string;
  abi: unknown[] | null;
  deployed_bytecode: string;
  immutable_references: Record<string, unknown> | null;
  approved_at: Date | null;
}

/** A verified token asset: its contract and the explorer's check of it. */
export interface CheckedAssetRow {
  id: string;
  name: string;
  address: string;
  standard: string;
  token_name: string | null;
  token_symbol: string | null;
  token_decimals: number | null;
  checked_at: Date;
}

const CONTRACT_COLUMNS = `id, name, network, address, abi, deployed_bytecode, immutable_references, approved_at`;
const PREFIXED_COLUMNS = CONTRACT_COLUMNS.split(', ')
  .map((c) => `c.${c}`)
  .join(', ');

/** Deployed contracts at any of the `addresses` (every spelling to match given), oldest first. */
export async function deployedContractsAt(
  ds: DataSource,
  network: Network,
  addresses: string[],
): Promise<ContractRow[]> {
  return (await ds.query(
    `SELECT ${CONTRACT_COLUMNS} FROM contracts
     WHERE network = $1 AND address = ANY($2::text[]) AND status = 'deployed'
     ORDER BY created_at`,
    [network, addresses],
  )) as ContractRow[];
}

/**
 * Deployed contracts and contracts verified by recompiling at any of the `addresses`, in one
 * statement (a page that needs both pays one round trip): the deployed ones oldest first, as
 * deployedContractsAt answers them, then the verified ones (their `id` null).
 */
export async function contractsAndVerifiedAt(
  ds: DataSource,
  network: Network,
  addresses: string[],
): Promise<{ deployed: ContractRow[]; verified: Array<{ address: string; name: string; abi: unknown[] | null }> }> {
  const rows = (await ds.query(
    `SELECT * FROM (
       SELECT true AS deployed, ${CONTRACT_COLUMNS}, created_at FROM contracts
        WHERE network = $1 AND address = ANY($2::text[]) AND status = 'deployed'
       UNION ALL
       SELECT false, NULL, name, network, address, abi, NULL, NULL, NULL, NULL FROM verified_contracts
        WHERE network = $1 AND address = ANY($2::text[])
     ) found
     ORDER BY deployed DESC, created_at`,
    [network, addresses],
  )) as Array<ContractRow & { deployed: boolean }>;
  return {
    deployed: rows.filter((r) => r.deployed),
    verified: rows.filter((r) => !r.deployed).map((r) => ({ address: r.address, name: r.name, abi: r.abi })),
  };
}

/** Deployed contracts whose lowercase name is LIKE `pattern`, by name then newest first. */
export async function deployedContractsNamed(
  ds: DataSource,
  network: Network,
  pattern: string,
  limit: number,
): Promise<ContractRow[]> {
  return (await ds.query(
    `SELECT ${CONTRACT_COLUMNS} FROM contracts
     WHERE lower(name) LIKE $2 AND network = $1 AND status = 'deployed' AND address IS NOT NULL
     ORDER BY name, created_at DESC LIMIT $3`,
    [network, pattern, limit],
  )) as ContractRow[];
}

/** Mainnet assets (approved, deployed, code matching) whose lowercase token name or symbol is LIKE `pattern`. */
export async function assetContractsNamed(ds: DataSource, pattern: string, limit: number): Promise<ContractRow[]> {
  return (await ds.query(
    `SELECT ${PREFIXED_COLUMNS} FROM explorer_contract_checks k
     JOIN contracts c ON c.id = k.contract_id
     WHERE k.code_matches AND k.standard IS NOT NULL AND c.network = 'mainnet' AND c.status = 'deployed'
       AND c.approved_at IS NOT NULL
       AND (lower(k.token_name) LIKE $1 OR lower(k.token_symbol) LIKE $1)
     ORDER BY k.checked_at DESC LIMIT $2`,
    [pattern, limit],
  )) as ContractRow[];
}

/** Newest approved, deployed mainnet contracts not checked yet. */
export async function uncheckedMainnetContracts(ds: DataSource, limit: number): Promise<ContractRow[]> {
  return (await ds.query(
    `SELECT ${PREFIXED_COLUMNS} FROM contracts c
     LEFT JOIN explorer_contract_checks k ON k.contract_id = c.id
     WHERE c.network = 'mainnet' AND c.status = 'deployed' AND c.approved_at IS NOT NULL
       AND c.address IS NOT NULL AND k.contract_id IS NULL
     ORDER BY c.deployed_at DESC NULLS LAST LIMIT $1`,
    [limit],
  )) as ContractRow[];
}

/** Newest mainnet assets: approved, deployed contracts checked as tokens whose code matches. */
export async function checkedAssets(ds: DataSource, limit: number): Promise<CheckedAssetRow[]> {
  return (await ds.query(
    `SELECT c.id, c.name, c.address, k.standard, k.token_name, k.token_symbol, k.token_decimals, k.checked_at
     FROM explorer_contract_checks k
     JOIN contracts c ON c.id = k.contract_id
     WHERE k.code_matches AND k.standard IS NOT NULL
       AND c.network = 'mainnet' AND c.status = 'deployed' AND c.approved_at IS NOT NULL
     ORDER BY k.checked_at DESC, c.deployed_at DESC NULLS LAST
     LIMIT $1`,
    [limit],
  )) as CheckedAssetRow[];
}
