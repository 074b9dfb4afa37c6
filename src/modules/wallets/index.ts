/** What the wallets module offers the other modules (the only file they may import from it). */
export { WalletService } from './wallets.service';
export { TransactionSender, type RecordedSend, type RecordedQueued, type RecordedSent } from './transaction-sender';
export { feePerGasOf } from './fee-quote';
export { PendingCancels, type PendingCancelHooks } from './pending-cancel';
export { checkSpendPerTx, reserveSpend, reserveDoorSend, refundDoorSend } from './spend-caps';
export type { PreparedTransaction, SendRequest, TransactionSigner } from './send-request';
