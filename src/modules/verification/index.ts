/** What the verification module offers (docs/api.md, "Verification" and "Etherscan-compatible API"). */
import { domainManifest } from '../../kernel/domain-manifest';
import { VerificationResolver } from './verification.resolver';
import { VERIFICATION_ROUTES } from './verification.routes';
import type { VerificationService } from './verification.service';

export { VerificationService, type VerifiedContract, type VerificationRequest } from './verification.service';
export { EtherscanApi, type EtherscanAnswer } from './etherscan-api';

/** The verification domain: contracts verified by recompiling their sources. */
export const VERIFICATION_MODULE = domainManifest<{ verification: VerificationService }>({
  name: 'verification',
  entities: [],
  resolvers: [{ type: VerificationResolver, build: (s) => new VerificationResolver(s.verification) }],
  routes: VERIFICATION_ROUTES,
});
