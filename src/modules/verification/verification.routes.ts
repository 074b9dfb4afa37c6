import type { RestRoute } from '../../kernel/domain-manifest';

/** The verification module's REST routes (docs/api.md, "Verification"). */
export const VERIFICATION_ROUTES: readonly RestRoute[] = [
  {
    area: 'explorer',
    method: 'GET',
    path: '/address/{address}/contract',
    field: 'Query.addressContract',
    // docs/api.md, "Verification": `{found, contract?}`.
    omitWhenNull: ['contract'],
    auth: 'public',
    summary: 'The verified contract at an address: sources, settings, ABI and creation',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/verification/config',
    field: 'Query.verificationConfig',
    auth: 'public',
    summary: 'Compilers and EVM versions that verification accepts',
  },
];
