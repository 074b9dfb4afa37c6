import { Accounts1763760000000 } from './1763760000000-Accounts';
import { Contracts1763765000000 } from './1763765000000-Contracts';
import { Explorer1763770000000 } from './1763770000000-Explorer';
import { Transactions1763766000000 } from './1763766000000-Transactions';
import { ApiKeys1763767000000 } from './1763767000000-ApiKeys';
import { RateLimits1763780000000 } from './1763780000000-RateLimits';
import { LoginBinding1763900000000 } from './1763900000000-LoginBinding';
import { TransactionIndex1764000000000 } from './1764000000000-TransactionIndex';
import { ContractEvents1764100000000 } from './1764100000000-ContractEvents';
import { TransactionRecords1764200000000 } from './1764200000000-TransactionRecords';
import { Webhooks1764300000000 } from './1764300000000-Webhooks';
import { PackedGatewayCalls1764400000000 } from './1764400000000-PackedGatewayCalls';
import { WebhookOperations1764560000000 } from './1764560000000-WebhookOperations';
import { RpcUsageKind1764700000000 } from './1764700000000-RpcUsageKind';
import { VerifiedContracts1764800000000 } from './1764800000000-VerifiedContracts';
import { KeyPolicies1764900000000 } from './1764900000000-KeyPolicies';
import { Tokens1765000000000 } from './1765000000000-Tokens';
import { KeySpend1765100000000 } from './1765100000000-KeySpend';
import { TransactionHistory1765237410000 } from './1765237410000-TransactionHistory';
import { TransactionRetry1765237420000 } from './1765237420000-TransactionRetry';
import { DoorSendReceipts1765237430000 } from './1765237430000-DoorSendReceipts';
import { CancelReplacement1765238170000 } from './1765238170000-CancelReplacement';
import { ExplorerLogEvents1765248630000 } from './1765248630000-ExplorerLogEvents';
import { TokenHolderCount1765260000000 } from './1765260000000-TokenHolderCount';
import { TokenTransferIndexes1765260001000 } from './1765260001000-TokenTransferIndexes';

/** Every migration, oldest first; the DataSource runs exactly these. */
export const MIGRATIONS = [
  Accounts1763760000000,
  Contracts1763765000000,
  Transactions1763766000000,
  ApiKeys1763767000000,
  Explorer1763770000000,
  RateLimits1763780000000,
  LoginBinding1763900000000,
  TransactionIndex1764000000000,
  ContractEvents1764100000000,
  TransactionRecords1764200000000,
  Webhooks1764300000000,
  PackedGatewayCalls1764400000000,
  WebhookOperations1764560000000,
  RpcUsageKind1764700000000,
  VerifiedContracts1764800000000,
  KeyPolicies1764900000000,
  Tokens1765000000000,
  KeySpend1765100000000,
  TransactionHistory1765237410000,
  TransactionRetry1765237420000,
  DoorSendReceipts1765237430000,
  CancelReplacement1765238170000,
  ExplorerLogEvents1765248630000,
  TokenHolderCount1765260000000,
  TokenTransferIndexes1765260001000,
];
