import { ContractCheckEntity } from './contract-check.entity';
import { ExplorerBlockEntity } from './explorer-block.entity';
import { ExplorerLogEntity } from './explorer-log.entity';
import { ExplorerTransactionEntity } from './explorer-transaction.entity';
import { IndexStateEntity } from './index-state.entity';

/** The explorer's tables (migration 1763770000000-Explorer). */
export const EXPLORER_ENTITIES = [
  ExplorerBlockEntity,
  ExplorerTransactionEntity,
  ExplorerLogEntity,
  IndexStateEntity,
  ContractCheckEntity,
];
