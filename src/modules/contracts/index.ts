/** What the contracts module offers the other modules (the only file they may import from it). */
export { ContractEntity } from './contract.entity';
export { ContractService } from './contracts.service';
export {
  PORTAL_SOLC_RELEASE,
  SolidityCompiler,
  solcPackageOf,
  type CompileLane,
  type PoolOutcome,
} from './compiler/compiler';
