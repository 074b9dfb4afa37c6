/** What the wallets module offers the other modules (the only file they may import from it). */
export { WalletService } from './wallets.service';
export {
  TransactionSender,
  checkSpendPerTx,
  feePerGasOf,
  reserveSpend,
  reserveDoorSend,
  refundDoorSend,
  type PreparedTransaction,
  type SendRequest,
  type TransactionSigner,
} from './transaction-sender';
