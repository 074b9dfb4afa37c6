import { dataSlice, decodeBytes32String, id as keccakId } from 'ethers';
import type { DataSource } from 'typeorm';
import type { Network } from '../../../kernel/network';
import type { Logger } from '../../../kernel/logger';
import type { ChainReader } from '../runtime/chain-reader';
import {
  detectTokenStandard,
  runtimeCodeMatches,
  type ImmutableReferences,
  type TokenStandard,
} from './contract-verification';
import { checksum } from '../../../kernel/address';
import { decodeParams, paramTypes } from '../../../chain/abi';
import {
  assetContractsNamed,
  checkedAssets,
  contractsAndVerifiedAt,
  deployedContractsAt,
  deployedContractsNamed,
  uncheckedMainnetContracts,
  type ContractRow,
} from './portal-contracts.query';

/** What the explorer needs of a portal contract (the contracts table belongs to the contracts domain). */
export interface PortalContract {
  id: string;
  name: string;
  network: Network;
  address: string;
  abi: unknown[];
  deployedBytecode: string;
  immutableReferences: ImmutableReferences;
  approvedAt: Date | null;
}

export interface ContractCheck {
  codeMatches: boolean;
  standard: TokenStandard | null;
  tokenName: string | null;
  tokenSymbol: string | null;
  tokenDecimals: number | null;
  checkedAt: Date;
}

export interface VerifiedAssetRow {
  contractId: string;
  address: string;
  name: string;
  symbol: string | null;
  decimals: number | null;
  standard: TokenStandard;
  verifiedAt: Date;
}

type Row = Record<string, unknown>;

/** Contracts checked per verified-assets request at most, so a burst of new ones cannot slow it down much. */
const CHECKS_PER_REQUEST = 20;
const MAX_NAME_LENGTH = 100;

const toContract = (r: ContractRow): PortalContract => ({
  id: r.id,
  name: r.name,
  network: r.network,
  address: checksum(r.address),
  abi: r.abi ?? [],
  deployedBytecode: r.deployed_bytecode,
  immutableReferences: (r.immutable_references as ImmutableReferences | null) ?? {},
  approvedAt: r.approved_at ?? null,
});

/** Both spellings of an address, so that a lookup works however the contracts domain stored it. */
const spellings = (addresses: string[]) => [...new Set(addresses.flatMap((a) => [checksum(a), a.toLowerCase()]))];

/** LIKE pattern for a prefix, with LIKE's wildcards escaped. */
const prefixPattern = (text: string) => `${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const SELECTOR = {
  name: keccakId('name()').slice(0, 10),
  symbol: keccakId('symbol()').slice(0, 10),
  decimals: keccakId('decimals()').slice(0, 10),
};

/**
 * Portal contracts as the explorer sees them: which one is at an address, whether its code on chain
 * is its compiled code, and which of them are verified token assets. Check results are kept in
 * explorer_contract_checks (deployed code does not change), so each contract is compared once.
 */
export class PortalContracts {
  constructor(
    private readonly ds: DataSource,
    private readonly reader: ChainReader,
    private readonly logger: Logger,
  ) {}

  /** Deployed portal contracts at the given addresses, by lowercase address. */
  async at(network: Network, addresses: string[]): Promise<Map<string, PortalContract>> {
    if (addresses.length === 0) return new Map();
    const rows = await deployedContractsAt(this.ds, network, spellings(addresses));
    return new Map(rows.map((r) => [r.address.toLowerCase(), toContract(r)]));
  }

  /**
   * at() and, in the same round trip, the contracts verified by recompiling (the verification
   * domain's verified_contracts table) at the given addresses, by lowercase address: their names
   * and ABIs, for decoding (docs/api.md, "Verification").
   */
  async atAndVerified(
    network: Network,
    addresses: string[],
  ): Promise<{ contracts: Map<string, PortalContract>; verified: Map<string, { name: string; abi: unknown[] }> }> {
    if (addresses.length === 0) return { contracts: new Map(), verified: new Map() };
    const rows = await contractsAndVerifiedAt(this.ds, network, spellings(addresses));
    return {
      contracts: new Map(rows.deployed.map((r) => [r.address.toLowerCase(), toContract(r)])),
      verified: new Map(rows.verified.map((r) => [r.address.toLowerCase(), { name: r.name, abi: r.abi ?? [] }])),
    };
  }

  /** Deployed portal contracts whose name starts with `prefix` (case-insensitive). */
  async byNamePrefix(network: Network, prefix: string, limit: number): Promise<PortalContract[]> {
    const rows = await deployedContractsNamed(this.ds, network, prefixPattern(prefix), limit);
    return rows.map(toContract);
  }

  /** Verified assets whose token name or symbol starts with `prefix`. */
  async assetsByPrefix(prefix: string, limit: number): Promise<PortalContract[]> {
    const rows = await assetContractsNamed(this.ds, prefixPattern(prefix), limit);
    return rows.map(toContract);
  }

  /**
   * Whether the contract's code on chain is its compiled code (and, for tokens, their metadata).
   * `code` may be given when the caller already read it. Node failures leave nothing stored.
   */
  async check(contract: PortalContract, code?: string): Promise<ContractCheck> {
    const stored: Row[] = await this.ds.query(
      `SELECT code_matches, standard, token_name, token_symbol, token_decimals, checked_at
       FROM explorer_contract_checks WHERE contract_id = $1`,
      [contract.id],
    );
    if (stored[0]) return this.toCheck(stored[0]);
    const onChain =
      code ?? (await this.reader.call<string>(contract.network, 'eth_getCode', [contract.address, 'latest']));
    // No code yet: the node may lag behind the deployment; decide later rather than store a mismatch.
    if (onChain === '0x') {
      return {
        codeMatches: false,
        standard: null,
        tokenName: null,
        tokenSymbol: null,
        tokenDecimals: null,
        checkedAt: new Date(),
      };
    }
    const codeMatches = runtimeCodeMatches(onChain, contract.deployedBytecode, contract.immutableReferences);
    const standard = detectTokenStandard(contract.abi);
    const meta = codeMatches && standard ? await this.tokenMetadata(contract, standard) : null;
    const rows: Row[] = await this.ds.query(
      `INSERT INTO explorer_contract_checks
         (contract_id, network, address, code_matches, standard, token_name, token_symbol, token_decimals)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (contract_id) DO UPDATE SET contract_id = EXCLUDED.contract_id
       RETURNING code_matches, standard, token_name, token_symbol, token_decimals, checked_at`,
      [
        contract.id,
        contract.network,
        contract.address,
        codeMatches,
        standard,
        meta?.name ?? null,
        meta?.symbol ?? null,
        meta?.decimals ?? null,
      ],
    );
    if (!codeMatches) {
      this.logger.info({ contractId: contract.id, network: contract.network }, 'Portal contract code differs on chain');
    }
    return this.toCheck(rows[0]!);
  }

  private toCheck(r: Row): ContractCheck {
    return {
      codeMatches: r.code_matches as boolean,
      standard: (r.standard as TokenStandard | null) ?? null,
      tokenName: (r.token_name as string | null) ?? null,
      tokenSymbol: (r.token_symbol as string | null) ?? null,
      tokenDecimals: (r.token_decimals as number | null) ?? null,
      checkedAt: r.checked_at as Date,
    };
  }

  /** name(), symbol() and (ERC-20) decimals() read from the token; what it lacks is null. */
  private async tokenMetadata(contract: PortalContract, standard: TokenStandard) {
    const read = async (data: string) => {
      try {
        return await this.reader.call<string>(contract.network, 'eth_call', [{ to: contract.address, data }, 'latest']);
      } catch {
        return null;
      }
    };
    const [name, symbol, decimals] = await Promise.all([
      read(SELECTOR.name),
      read(SELECTOR.symbol),
      standard === 'ERC-20' ? read(SELECTOR.decimals) : Promise.resolve(null),
    ]);
    return { name: decodeText(name), symbol: decodeText(symbol), decimals: decodeSmallInt(decimals) };
  }

  /**
   * Newest verified assets: mainnet token contracts deployed through the portal after approval whose
   * code matches. Contracts not compared yet are compared first (a few per call).
   */
  async recentAssets(limit: number): Promise<VerifiedAssetRow[]> {
    const unchecked = await uncheckedMainnetContracts(this.ds, CHECKS_PER_REQUEST);
    // Every candidate gets a stored check, tokens or not, so that the same ones are not picked again.
    const candidates = unchecked.map(toContract);
    if (candidates.length > 0 && this.reader.isAvailable('mainnet')) {
      await Promise.all(
        candidates.map((c) =>
          this.check(c).catch((err: unknown) =>
            this.logger.warn({ contractId: c.id, err: String(err) }, 'Could not verify a portal contract now'),
          ),
        ),
      );
    }
    const rows = await checkedAssets(this.ds, limit);
    return rows.map((r) => ({
      contractId: r.id,
      address: checksum(r.address),
      name: r.token_name ?? r.name,
      symbol: r.token_symbol,
      decimals: r.token_decimals,
      standard: r.standard as TokenStandard,
      verifiedAt: r.checked_at,
    }));
  }
}

/** A string return value (or a bytes32 one, as some old tokens return); null when neither. */
function decodeText(data: string | null): string | null {
  if (!data || data === '0x') return null;
  try {
    // A token's name() is chain data: decoded within the bounds (docs/api.md "Hostile chain data").
    const [s] = decodeParams(paramTypes('string'), data) as [string];
    return s.slice(0, MAX_NAME_LENGTH);
  } catch {
    try {
      return decodeBytes32String(dataSlice(data, 0, 32)).slice(0, MAX_NAME_LENGTH) || null;
    } catch {
      return null;
    }
  }
}

function decodeSmallInt(data: string | null): number | null {
  if (!data || data === '0x') return null;
  try {
    const [v] = decodeParams(paramTypes('uint256'), data) as [string];
    return BigInt(v) <= 255n ? Number(v) : null;
  } catch {
    return null;
  }
}
