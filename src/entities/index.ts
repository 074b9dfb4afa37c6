import { DeveloperEntity } from '../modules/accounts/developer.entity';
import { LoginChallengeEntity } from '../modules/accounts/login-challenge.entity';
import { ContractEntity } from '../modules/contracts/contract.entity';
import { EXPLORER_ENTITIES } from '../modules/explorer';
import { FaucetDripEntity } from '../modules/faucet/faucet-drip.entity';
import { ApiKeyEntity } from '../modules/keys/api-key.entity';
import { ProjectEntity } from '../modules/projects/project.entity';
import { ChainTransactionEntity } from '../modules/wallets/chain-transaction.entity';
import { CustodialWalletEntity } from '../modules/wallets/custodial-wallet.entity';

/** Every TypeORM entity of the service; each lives beside its domain in src/modules. */
export const ENTITIES = [
  DeveloperEntity,
  LoginChallengeEntity,
  CustodialWalletEntity,
  ProjectEntity,
  ContractEntity,
  ChainTransactionEntity,
  FaucetDripEntity,
  ApiKeyEntity,
  ...EXPLORER_ENTITIES,
];
