import { Wallet, parseEther } from 'ethers';
import type { DataSource } from 'typeorm';
import type { Network } from '../../kernel/network';
import { AppError } from '../../kernel/errors/app-error';
import type { Logger } from '../../kernel/logger';
import type { Session } from '../../auth/session';
import type { TransactionSender, TransactionSigner } from '../wallets';
import type { WalletService } from '../wallets';
import type { FaucetDrip } from './faucet.types';
import { LOCK_KEYS } from '../../kernel/lock-keys';
import { parseAddress } from '../../kernel/address';

/** docs/api.md, "Conventions": 5 drips per day, 10 native coins per drip, testnet only. */
export const DRIPS_PER_DAY = 5;
export const DRIP_AMOUNT_WEI = parseEther('10');
/** How long a reserved drip may wait for its transaction before it stops counting (a crash mid-drip). */
const RESERVATION_TTL = '2 minutes';
const RECEIPT_TIMEOUT_MS = 60_000;

const nextUtcMidnight = (now: Date) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));

/** Test gas for developers: a daily allowance enforced in PostgreSQL, paid from the faucet account. */
export class FaucetService {
  private readonly signer?: TransactionSigner;

  constructor(
    private readonly ds: DataSource,
    private readonly wallets: WalletService,
    private readonly sender: TransactionSender,
    faucetPrivateKey: string | undefined,
    private readonly logger: Logger,
  ) {
    if (faucetPrivateKey) {
      const key = faucetPrivateKey.startsWith('0x') ? faucetPrivateKey : `0x${faucetPrivateKey}`;
      const address = new Wallet(key).address;
      this.signer = { address, open: async (provider) => new Wallet(key, provider) };
    }
  }

  /** The faucet's signer when `address` is the faucet account. */
  signerFor(address: string): TransactionSigner | undefined {
    return this.signer && this.signer.address === address ? this.signer : undefined;
  }

  /**
   * A drip whose transaction never lands (dropped, or replaced at its nonce by its cancel) stops
   * counting against its developer's day (docs/api.md, "Wallet and faucet").
   */
  async forgetUnlanded(txHash: string): Promise<void> {
    await this.ds.query('DELETE FROM faucet_drips WHERE tx_hash = $1', [txHash]);
  }

  /** Faucet account address (public, for operators topping it up). */
  get address(): string | undefined {
    return this.signer?.address;
  }

  /** docs/api.md, Wallet and faucet: `to` is any address; the drip counts against the caller's day. */
  async drip(session: Session, network: Network = 'testnet', to?: string): Promise<FaucetDrip> {
    const developer = await session.developer();
    const recipient = to === undefined ? undefined : parseAddress(to, 'to');
    if (network !== 'testnet') {
      throw new AppError('FAUCET_TESTNET_ONLY', 'The faucet pays out on testnet only');
    }
    if (!this.signer) {
      throw new AppError('FAUCET_EMPTY', 'The faucet is not configured on this service (FAUCET_PRIVATE_KEY)');
    }
    const target = recipient ?? (await this.wallets.walletOf(developer.id)).address;
    const now = new Date();
    const day = now.toISOString().slice(0, 10);
    const resetsAt = nextUtcMidnight(now);

    // Reserve one of today's drips; the per-developer lock makes the count exact across instances.
    const { dripId, used } = await this.ds.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock(hashtext($1))', [LOCK_KEYS.faucetDrips(developer.id)]);
      const [row] = (await m.query(
        `SELECT count(*)::int AS used FROM faucet_drips
          WHERE developer_id = $1 AND day = $2
            AND (tx_hash IS NOT NULL OR created_at > now() - interval '${RESERVATION_TTL}')`,
        [developer.id, day],
      )) as Array<{ used: number }>;
      if (row!.used >= DRIPS_PER_DAY) {
        const retryAfter = Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000));
        throw new AppError(
          'FAUCET_LIMIT',
          `The faucet allows ${DRIPS_PER_DAY} drips per UTC day; the next one is possible at ${resetsAt.toISOString()}`,
          { dripsPerDay: DRIPS_PER_DAY, resetsAt: resetsAt.toISOString() },
          { 'Retry-After': String(retryAfter) },
        );
      }
      const [inserted] = (await m.query(
        `INSERT INTO faucet_drips (developer_id, day, amount_wei) VALUES ($1, $2, $3) RETURNING id`,
        [developer.id, day, DRIP_AMOUNT_WEI.toString()],
      )) as Array<{ id: string }>;
      return { dripId: inserted!.id, used: row!.used + 1 };
    });

    let txHash: string;
    let transactionId: string | undefined;
    try {
      ({
        recordId: transactionId,
        sent: { txHash },
      } = await this.sender.sendRecorded({
        record: { kind: 'faucet', network: 'testnet', developerId: developer.id },
        request: {
          network: 'testnet',
          signer: this.signer,
          to: target,
          value: DRIP_AMOUNT_WEI,
          kind: 'faucet',
          developerId: developer.id,
        },
      }));
    } catch (e) {
      // Not sent, not counted.
      await this.ds.query('DELETE FROM faucet_drips WHERE id = $1', [dripId]);
      if (e instanceof AppError && e.code === 'INSUFFICIENT_FUNDS') {
        this.logger.error({ faucet: this.signer.address }, 'the faucet account has run dry');
        throw new AppError('FAUCET_EMPTY', 'The faucet has run dry; try again later', undefined, {
          'Retry-After': '600',
        });
      }
      throw e;
    }
    await this.ds.query('UPDATE faucet_drips SET tx_hash = $2 WHERE id = $1', [dripId, txHash]);
    // A drip cancelled while it waits answers at once, unmined (docs/api.md, "Wallet and faucet").
    const mined = await this.sender.waitForReceipt('testnet', txHash, RECEIPT_TIMEOUT_MS, undefined, transactionId);
    return {
      transactionId,
      txHash,
      network: 'testnet',
      to: target,
      amountWei: DRIP_AMOUNT_WEI.toString(),
      amount: '10',
      blockNumber: mined?.blockNumber ?? null,
      dripsUsedToday: used,
      dripsRemainingToday: DRIPS_PER_DAY - used,
      resetsAt,
    };
  }
}
