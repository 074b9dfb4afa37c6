/** Who may call a route, as enforced by the service (API.md refines SPEC.md's "undeclared"). */
export type RouteAuth = 'public' | 'dev-jwt' | 'api-key';

export type RestArea = 'devportal' | 'explorer';

/** One REST route of SPEC.md/API.md and the GraphQL root field that serves it. */
export interface RestRoute {
  area: RestArea;
  method: 'GET' | 'POST' | 'DELETE';
  /** Path under the area's base path, with `{param}` placeholders as in SPEC.md. */
  path: string;
  /** `Query.name` or `Mutation.name`. */
  field: string;
  auth: RouteAuth;
  summary: string;
}

export const AREA_BASE: Record<RestArea, string> = {
  devportal: '/api/devportal',
  explorer: '/api/explorer',
};

/**
 * Every REST route of the service. SOFA gets exactly these (its schema is filtered to these
 * fields), the served OpenAPI documents are built from them, and tests walk this table.
 */
export const REST_ROUTES: readonly RestRoute[] = [
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
  {
    area: 'devportal',
    method: 'POST',
    path: '/projects',
    field: 'Mutation.createProject',
    auth: 'dev-jwt',
    summary: 'Create a project',
  },
  // Explorer (public, read-only)
  {
    area: 'explorer',
    method: 'GET',
    path: '/live-blocks',
    field: 'Query.liveBlocks',
    auth: 'public',
    summary: 'Latest blocks of a network, newest first',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/network-status',
    field: 'Query.networkStatus',
    auth: 'public',
    summary: 'Last block, validators, average block time, RPC health and index progress',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/search',
    field: 'Query.search',
    auth: 'public',
    summary: 'Search blocks, transactions, addresses, portal contracts and verified assets',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/tx/{hash}',
    field: 'Query.transaction',
    auth: 'public',
    summary: 'A transaction with its receipt and logs',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/block/{id}',
    field: 'Query.block',
    auth: 'public',
    summary: 'A block by number, hash or "latest"',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/address/{address}',
    field: 'Query.address',
    auth: 'public',
    summary: 'Balance, nonce, code and recent transactions of an address',
  },
  {
    area: 'explorer',
    method: 'GET',
    path: '/verified-assets/recent',
    field: 'Query.recentVerifiedAssets',
    auth: 'public',
    summary: 'Recently verified mainnet token assets',
  },
];

/** SPEC.md's `{id}` placeholders in the `:id` form of the router. */
export const toRouterPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** Status of a successful call: 201 for POST, 200 for GET and DELETE (SPEC.md, Endpoints). */
export const successStatus = (r: RestRoute): 200 | 201 => (r.method === 'POST' ? 201 : 200);
