import type { RestRoute } from '../../kernel/domain-manifest';

/** The accounts module's REST routes (docs/api.md, "Login by electronic digital signature" and "Developer account and projects"). */
export const ACCOUNTS_ROUTES: readonly RestRoute[] = [
  {
    area: 'devportal',
    method: 'POST',
    path: '/auth/eds/challenge',
    field: 'Mutation.edsChallenge',
    auth: 'public',
    summary: 'Start an EDS login: get a single-use nonce to sign',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/auth/eds/login',
    field: 'Mutation.edsLogin',
    auth: 'public',
    summary: 'Log in with an electronic digital signature; returns a developer token',
  },
  {
    area: 'devportal',
    method: 'POST',
    path: '/auth/logout',
    field: 'Mutation.logout',
    auth: 'dev-jwt',
    summary: 'Log out: revoke every token of the caller issued up to now',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/auth/me',
    field: 'Query.me',
    auth: 'dev-jwt',
    summary: 'Profile of the current developer',
  },
  {
    area: 'devportal',
    method: 'GET',
    path: '/developers/{id}',
    field: 'Query.developer',
    auth: 'dev-jwt',
    summary: 'Developer profile with wallets and projects (own id only)',
  },
];
