import { Wallet, formatEther, getAddress, hexlify, randomBytes } from 'ethers';
import type { DataSource, EntityManager } from 'typeorm';
import type { ChainRegistry } from '../../chain/chain-registry';
import { CHAIN_IDS, type Network } from '../../kernel/network';
import { AppError } from '../../kernel/errors/app-error';
import type { Session } from '../../auth/session';
import { CustodialWalletEntity } from './custodial-wallet.entity';
import type { TransactionSigner } from './send-request';
import { openPrivateKey, sealPrivateKey } from './wallet-key-cipher';
import type { WalletBalance, WalletHistory, WalletHistoryItem } from './wallets.types';
import { walletHistoryRows } from './wallet-history.query';
import { parseAddress } from '../../kernel/address';
import { decodeCursorWith, encodeCursor, pageLimit } from '../../kernel/pagination';

/** Owns custodial wallets: creates them, reads balances and history, and is the only place that opens their keys. */
export class WalletService {
  constructor(
    private readonly ds: DataSource,
    private readonly encryptionKey: Buffer,
    private readonly chains: ChainRegistry,
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

  /**
   * Transactions of the caller's wallet, newest first, by keyset pages: those the service sent
   * (faucet, deploy, invoke) and, from the explorer index, any other transfer in or out.
   */
  async history(
    session: Session,
    developerId: string,
    network: Network,
    limit?: number | null,
    cursor?: string | null,
  ): Promise<WalletHistory> {
    const caller = await session.self(developerId);
    const size = pageLimit(limit);
    const after = decodeHistoryCursor(cursor);
    const { address } = await this.walletOf(caller.id);
    const rows = await walletHistoryRows(this.ds, {
      network,
      address,
      after: after ?? null,
      limit: size + 1,
    });
    const page = rows.slice(0, size);
    const last = page[page.length - 1];
    const checksum = (a: string | null) => (a === null ? null : getAddress(a));
    return {
      address,
      network,
      items: page.map((r): WalletHistoryItem => ({
        txHash: r.hash,
        kind: r.kind,
        from: checksum(r.from_address)!,
        to: checksum(r.to_address),
        valueWei: r.value_wei,
        gasUsed: r.gas_used,
        status: r.status,
        blockNumber: r.block_number === null ? null : Number(r.block_number),
        timestamp: r.block_number === null ? null : Number(r.ts),
        contractId: r.contract_id,
        method: r.method,
      })),
      nextCursor:
        rows.length > size && last
          ? encodeCursor({
              pending: last.pending,
              at: Number(last.at),
              position: Number(last.position),
              hash: last.hash,
            })
          : null,
    };
  }
}

/**
 * Position in a wallet history: the last item shown. Transactions not yet in a block come first
 * (by the time they were sent, `at`), then the mined ones by block number (`at`) and transaction
 * index in the block (`position`), newest first; the hash breaks ties.
 */
interface HistoryCursor {
  pending: 0 | 1;
  at: number;
  position: number;
  hash: string;
}

/** A transaction's position in its block is a PostgreSQL int; a larger cursor value would fail the query. */
const MAX_CURSOR_POSITION = 2_147_483_647;

function decodeHistoryCursor(cursor: string | null | undefined): HistoryCursor | undefined {
  // Only what the history writes: pending 0 or 1, numbers PostgreSQL's bigint and int hold, a hash.
  return decodeCursorWith(cursor, (c) =>
    (c.pending === 0 || c.pending === 1) &&
    typeof c.at === 'number' &&
    Number.isSafeInteger(c.at) &&
    c.at >= 0 &&
    typeof c.position === 'number' &&
    Number.isSafeInteger(c.position) &&
    c.position >= -1 && // -1: mined before its index in the block was recorded, and not yet in the explorer index
    c.position <= MAX_CURSOR_POSITION &&
    typeof c.hash === 'string' &&
    /^0x[0-9a-f]{64}$/.test(c.hash)
      ? { pending: c.pending, at: c.at, position: c.position, hash: c.hash }
      : undefined,
  );
}
