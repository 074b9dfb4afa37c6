/** What the transactions module offers the other modules (the only file they may import from it). */
import { domainManifest } from '../../kernel/domain-manifest';
import { TransactionRecordEntity } from './transaction-record.entity';
import { TransactionRecordsResolver } from './transactions.resolver';
import { TRANSACTIONS_ROUTES } from './transactions.routes';
import type { TransactionRecordsService } from './transactions.service';

export {
  TransactionRecords,
  NO_SINK,
  QUEUED_TIMEOUT,
  type TransactionRecordView,
  type TransactionStatusSink,
  type NewRecord,
  type MinedOutcome,
  type StoredRecord,
} from './transaction-records';
export {
  TransactionRecordEntity,
  type StoredHistoryEntry,
  type TransactionRecordStatus,
  type RecordedCall,
} from './transaction-record.entity';
export { TransactionRecordsService, type PendingCanceller, type TransactionRetrier } from './transactions.service';

/** The transactions domain: the records of every transaction the portal sends. */
export const TRANSACTIONS_MODULE = domainManifest<{ transactions: TransactionRecordsService }>({
  name: 'transactions',
  entities: [TransactionRecordEntity],
  resolvers: [{ type: TransactionRecordsResolver, build: (s) => new TransactionRecordsResolver(s.transactions) }],
  routes: TRANSACTIONS_ROUTES,
});
