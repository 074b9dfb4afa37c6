/** What the wallets module offers the other modules (the only file they may import from it). */
import { domainManifest } from '../../kernel/domain-manifest';
import { ChainTransactionEntity } from './chain-transaction.entity';
import { CustodialWalletEntity } from './custodial-wallet.entity';
import { WalletsResolver } from './wallets.resolver';
import { WALLETS_ROUTES } from './wallets.routes';
import type { WalletService } from './wallets.service';

export { WalletService } from './wallets.service';
export { TransactionSender, type RecordedSend, type RecordedQueued, type RecordedSent } from './transaction-sender';
export { feePerGasOf } from './fee-quote';
export { PendingCancels, type PendingCancelHooks } from './pending-cancel';
export { checkSpendPerTx, reserveSpend, reserveDoorSend, refundDoorSend } from './spend-caps';
export type { PreparedTransaction, SendRequest, TransactionSigner } from './send-request';

/** The wallets domain: custodial wallets, balances, and every transaction the portal signs and sends. */
export const WALLETS_MODULE = domainManifest<{ wallets: WalletService }>({
  name: 'wallets',
  entities: [CustodialWalletEntity, ChainTransactionEntity],
  resolvers: [{ type: WalletsResolver, build: (s) => new WalletsResolver(s.wallets) }],
  routes: WALLETS_ROUTES,
});
