/** What the transactions module offers the other modules (the only file they may import from it). */
export {
  TransactionRecords,
  NO_SINK,
  QUEUED_TIMEOUT,
  type TransactionRecordView,
  type TransactionStatusSink,
  type NewRecord,
  type MinedOutcome,
  type StoredRecord,
  type HistoryNote,
} from './transaction-records';
export {
  TransactionRecordEntity,
  type TransactionHistoryEntry,
  type TransactionRecordStatus,
  type RecordedCall,
} from './transaction-record.entity';
export { TransactionService, type TransactionRetrier } from './transactions.service';
