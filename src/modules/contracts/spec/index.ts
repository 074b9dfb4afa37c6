export { contractOperations, type ContractOperation, type ContractSpecInput } from './contract-operations';
export { buildContractOpenApi } from './contract-openapi';
export { buildContractSwagger } from './contract-swagger';
