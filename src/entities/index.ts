import { DeveloperEntity } from '../modules/accounts/developer.entity';
import { LoginChallengeEntity } from '../modules/accounts/login-challenge.entity';
import { ContractEntity } from '../modules/contracts/contract.entity';
// Not through the explorer's index.ts: this list loads first (with the data source), and the index
// would define the explorer's resolvers before the others, moving its fields to the top of Query.
import { EXPLORER_ENTITIES } from '../modules/explorer/explorer.entities';
import { FaucetDripEntity } from '../modules/faucet/faucet-drip.entity';
import { ApiKeyEntity } from '../modules/keys/api-key.entity';
import { ProjectEntity } from '../modules/projects/project.entity';
import { TransactionRecordEntity } from '../modules/transactions/transaction-record.entity';
import { ChainTransactionEntity } from '../modules/wallets/chain-transaction.entity';
import { CustodialWalletEntity } from '../modules/wallets/custodial-wallet.entity';
import { WebhookDeliveryEntity } from '../modules/webhooks/webhook-delivery.entity';
import { WebhookEntity } from '../modules/webhooks/webhook.entity';

/** Every TypeORM entity of the service; each lives beside its domain in src/modules. */
export const ENTITIES = [
  DeveloperEntity,
  LoginChallengeEntity,
  CustodialWalletEntity,
  ProjectEntity,
  ContractEntity,
  ChainTransactionEntity,
  TransactionRecordEntity,
  FaucetDripEntity,
  ApiKeyEntity,
  WebhookEntity,
  WebhookDeliveryEntity,
  ...EXPLORER_ENTITIES,
];
