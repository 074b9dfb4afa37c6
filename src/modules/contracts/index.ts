/** What the contracts module offers the other modules (the only file they may import from it). */
import { domainManifest } from '../../kernel/domain-manifest';
import { ContractEntity } from './contract.entity';
import { ContractsResolver } from './contracts.resolver';
import { CONTRACTS_ROUTES } from './contracts.routes';
import type { ContractService } from './contracts.service';

export { ContractEntity } from './contract.entity';
export { ContractService } from './contracts.service';
export {
  PORTAL_SOLC_RELEASE,
  SolidityCompiler,
  solcPackageOf,
  type CompileLane,
  type PoolOutcome,
} from './compiler/compiler';

/** The contracts domain: compile, deploy, mainnet approval, registration and the contracts' documents. */
export const CONTRACTS_MODULE = domainManifest<{ contracts: ContractService }>({
  name: 'contracts',
  entities: [ContractEntity],
  resolvers: [{ type: ContractsResolver, build: (s) => new ContractsResolver(s.contracts) }],
  routes: CONTRACTS_ROUTES,
});
