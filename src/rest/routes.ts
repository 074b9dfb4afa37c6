import { successStatus } from '../kernel/success-status';
import { MODULES } from '../modules';
import type { RestArea, RestRoute } from '../kernel/domain-manifest';

export type { RestArea, RestRoute, ResponseHeader, RouteAuth } from '../kernel/domain-manifest';

export const AREA_BASE: Record<RestArea, string> = {
  devportal: '/api/devportal',
  explorer: '/api/explorer',
};

/**
 * Root fields left without a REST route on purpose, each the GraphQL twin of a route (the
 * manifests' `graphqlOnlyFields`). They do not shape the REST documents either (rest-api.ts `areaSchema`).
 */
export const GRAPHQL_ONLY_FIELDS: readonly string[] = MODULES.flatMap((m) =>
  'graphqlOnlyFields' in m ? (m.graphqlOnlyFields ?? []) : [],
);

/**
 * The order the OpenAPI documents list the routes in, as they were published (by GraphQL field).
 * A route not named here follows these, in MODULES order: a new domain's routes need no line.
 */
const PUBLISHED_ORDER: readonly string[] = [
  'Mutation.edsChallenge',
  'Mutation.edsLogin',
  'Mutation.logout',
  'Query.me',
  'Query.developer',
  'Mutation.createProject',
  'Query.walletBalance',
  'Mutation.faucetDrip',
  'Query.walletHistory',
  'Mutation.compileContract',
  'Mutation.deployContract',
  'Query.contract',
  'Query.developerContracts',
  'Mutation.registerContractMiddleware',
  'Query.contractSwagger',
  'Query.contractOpenApi',
  'Query.adminContracts',
  'Mutation.approveContract',
  'Mutation.rejectContract',
  'Mutation.createApiKey',
  'Query.apiKeys',
  'Mutation.revokeApiKey',
  'Mutation.updateApiKey',
  'Mutation.rotateApiKey',
  'Mutation.createWebhook',
  'Query.webhooks',
  'Mutation.deleteWebhook',
  'Query.webhookDeliveries',
  'Mutation.testWebhook',
  'Mutation.redeliverWebhookDelivery',
  'Mutation.rotateWebhookSecret',
  'Mutation.queryContract',
  'Mutation.invokeContract',
  'Query.contractEvents',
  'Query.gatewayTransaction',
  'Query.developerTransactions',
  'Mutation.cancelTransaction',
  'Mutation.retryTransaction',
  'Query.analytics',
  'Query.liveBlocks',
  'Query.networkStatus',
  'Query.search',
  'Query.transaction',
  'Query.block',
  'Query.address',
  'Query.addressContract',
  'Query.verificationConfig',
  'Query.recentVerifiedAssets',
  'Query.addressTokenTransfers',
  'Query.addressTokenBalances',
  'Query.tokens',
  'Query.token',
  'Query.tokenHolders',
  'Query.tokenTransfers',
];

/** Every route of the manifests, in MODULES order. */
const MODULE_ROUTES: readonly RestRoute[] = MODULES.flatMap((m) => m.routes);

const rank = (r: RestRoute): number => {
  const at = PUBLISHED_ORDER.indexOf(r.field);
  return at >= 0 ? at : PUBLISHED_ORDER.length;
};

/**
 * Every REST route of the service (each domain's `<domain>.routes.ts`), in the documents' order.
 * SOFA gets exactly these (its schema is filtered to these fields), the served OpenAPI documents
 * are built from them, and tests walk this table.
 */
export const REST_ROUTES: readonly RestRoute[] = [...MODULE_ROUTES].sort((a, b) => rank(a) - rank(b));

for (const field of PUBLISHED_ORDER) {
  if (!MODULE_ROUTES.some((r) => r.field === field))
    throw new Error(`PUBLISHED_ORDER names ${field}, which has no route`);
}

/** the specification's `{id}` placeholders in the `:id` form of the router. */
export const toRouterPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** Status of a successful call of a route, not accepted for later (kernel/success-status.ts decides). */
export const routeStatus = (r: RestRoute): 200 | 201 => successStatus(r.method);
