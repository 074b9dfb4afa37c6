import { Wallet, hexlify, randomBytes, type Provider } from 'ethers';
import type { DataSource, EntityManager } from 'typeorm';
import { AppError } from '../../errors/app-error';
import { CustodialWalletEntity } from './custodial-wallet.entity';
import { openPrivateKey, sealPrivateKey } from './wallet-key-cipher';

/** Owns custodial wallets: creates them and is the only place that opens their private keys. */
export class WalletService {
  constructor(
    private readonly ds: DataSource,
    private readonly encryptionKey: Buffer,
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

  /** A signer for the developer's wallet on one network; the key is opened only here. */
  async signerFor(developerId: string, provider: Provider): Promise<Wallet> {
    const row = await this.ds
      .getRepository(CustodialWalletEntity)
      .createQueryBuilder('w')
      .addSelect('w.encryptedKey')
      .where('w.developer_id = :developerId', { developerId })
      .getOne();
    if (!row) throw new AppError('NOT_FOUND', 'The developer has no custodial wallet');
    return new Wallet(openPrivateKey(row.encryptedKey, row.address, this.encryptionKey), provider);
  }
}
