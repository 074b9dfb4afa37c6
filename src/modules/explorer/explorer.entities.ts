import { ContractCheckEntity } from './portal/contract-check.entity';
import { ExplorerBlockEntity } from './runtime/explorer-block.entity';
import { ExplorerLogEntity } from './runtime/explorer-log.entity';
import { ExplorerTransactionEntity } from './runtime/explorer-transaction.entity';
import { IndexStateEntity } from './runtime/index-state.entity';

/** The explorer's tables (migration 1763770000000-Explorer). */
export const EXPLORER_ENTITIES = [
  ExplorerBlockEntity,
  ExplorerTransactionEntity,
  ExplorerLogEntity,
  IndexStateEntity,
  ContractCheckEntity,
];
