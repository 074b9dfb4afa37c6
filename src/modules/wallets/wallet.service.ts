import { Wallet, formatEther, getAddress, hexlify, randomBytes } from 'ethers';
import type { DataSource, EntityManager } from 'typeorm';
import type { ChainRegistry } from '../../chain/chain-registry';
import { CHAIN_IDS, type Network } from '../../config';
import { AppError } from '../../errors/app-error';
import type { Credentials } from '../../server/context';
import type { DeveloperAuth } from '../accounts/developer-auth';
import { CustodialWalletEntity } from './custodial-wallet.entity';
import type { TransactionSigner } from './transaction-sender';
import { openPrivateKey, sealPrivateKey } from './wallet-key-cipher';
import type { WalletBalance, WalletHistory, WalletHistoryItem } from './wallets.types';
import { decodeCursor, encodeCursor, pageLimit } from '../../schema/pagination';

/** A 0x address in any case (API.md §1) → EIP-55; anything else is the caller's error. */
export function parseAddress(value: unknown, field = 'address'): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value)) {
    throw new AppError('VALIDATION_FAILED', `${field} must be a 0x-prefixed 20-byte hex address`, { field });
  }
  return getAddress(value.toLowerCase());
}

interface HistoryRow {
  id: string;
  tx_hash: string;
  kind: 'faucet' | 'deploy' | 'invoke';
  from_address: string;
  to_address: string | null;
  value_wei: string;
  gas_used: string | null;
  status: string;
  block_number: string | null;
  block_timestamp: string | null;
  contract_id: string | null;
  method: string | null;
  created_at: Date;
}

/** Owns custodial wallets: creates them, reads balances and history, and is the only place that opens their keys. */
export class WalletService {
  constructor(
    private readonly ds: DataSource,
    private readonly encryptionKey: Buffer,
    private readonly chains: ChainRegistry,
    private readonly auth: DeveloperAuth,
  ) {}

  /** Creates a developer's wallet inside the caller's transaction. */
  async createFor(manager: EntityManager, developerId: string): Promise<CustodialWalletEntity> {
    const wallet = new Wallet(hexlify(randomBytes(32)));
    const row = manager.create(CustodialWalletEntity, {
      developerId,
      address: wallet.address,
      encryptedKey: sealPrivateKey(wallet.privateKey, wallet.address, this.encryptionKey),
    });
    return manager.save(row);
  }

  async walletOf(developerId: string): Promise<CustodialWalletEntity> {
    const row = await this.ds.getRepository(CustodialWalletEntity).findOneBy({ developerId });
    if (!row) throw new AppError('NOT_FOUND', 'The developer has no custodial wallet');
    return row;
  }

  /** The developer's wallet as a signer; its key is opened only when a transaction is signed. */
  async custodialSigner(developerId: string): Promise<TransactionSigner> {
    const { address } = await this.walletOf(developerId);
    return {
      address,
      open: async (provider) => {
        const row = await this.ds
          .getRepository(CustodialWalletEntity)
          .createQueryBuilder('w')
          .addSelect('w.encryptedKey')
          .where('w.developer_id = :developerId', { developerId })
          .getOneOrFail();
        return new Wallet(openPrivateKey(row.encryptedKey, row.address, this.encryptionKey), provider);
      },
    };
  }

  /** The custodial signer of an address, if it is one of the service's wallets. */
  async signerForAddress(address: string): Promise<TransactionSigner | undefined> {
    const row = await this.ds.getRepository(CustodialWalletEntity).findOneBy({ address });
    return row ? this.custodialSigner(row.developerId) : undefined;
  }

  /** Native coin balance of any address. */
  async balance(address: string, network: Network): Promise<WalletBalance> {
    const checksummed = parseAddress(address);
    const wei = await this.chains.withRetry(network, (p) => p.getBalance(checksummed));
    return {
      address: checksummed,
      network,
      chainId: CHAIN_IDS[network],
      balanceWei: wei.toString(),
      balance: formatEther(wei),
    };
  }

  /** Transactions of the caller's wallet, newest first, by keyset pages. */
  async history(
    creds: Credentials,
    developerId: string,
    network: Network,
    limit?: number | null,
    cursor?: string | null,
  ): Promise<WalletHistory> {
    const caller = await this.auth.requireDeveloper(creds);
    this.auth.requireSelf(caller, developerId);
    const size = pageLimit(limit);
    const after = decodeCursor(cursor);
    const { address } = await this.walletOf(caller.id);
    const rows = (await this.ds.query(
      `SELECT id, tx_hash, kind, from_address, to_address, value_wei, gas_used, status, block_number,
              block_timestamp, contract_id, method, created_at
         FROM chain_transactions
        WHERE network = $1 AND status <> 'dropped' AND (from_address = $2 OR to_address = $2)
          AND ($3::timestamptz IS NULL OR (created_at, id) < ($3::timestamptz, $4::uuid))
        ORDER BY created_at DESC, id DESC
        LIMIT $5`,
      [network, address, after?.at ?? null, after?.id ?? null, size + 1],
    )) as HistoryRow[];
    const page = rows.slice(0, size);
    const last = page[page.length - 1];
    return {
      address,
      network,
      items: page.map((r): WalletHistoryItem => ({
        txHash: r.tx_hash,
        kind: r.kind,
        from: r.from_address,
        to: r.to_address,
        valueWei: r.value_wei,
        gasUsed: r.gas_used,
        status: r.status,
        blockNumber: r.block_number === null ? null : Number(r.block_number),
        timestamp: r.block_timestamp === null ? null : Number(r.block_timestamp),
        contractId: r.contract_id,
        method: r.method,
      })),
      nextCursor: rows.length > size && last ? encodeCursor({ at: last.created_at.toISOString(), id: last.id }) : null,
    };
  }
}
