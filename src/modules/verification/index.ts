/** What the verification module offers (docs/api.md, "Verification" and "Etherscan-compatible API"). */
export { VerificationService, type VerifiedContract, type VerificationRequest } from './verification.service';
export { EtherscanApi, type EtherscanAnswer } from './etherscan-api';
export { VerificationResolver } from './verification.resolver';
