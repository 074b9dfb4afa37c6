import type express from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from '../kernel/logger';
import { directDispatcher, type DirectEndpoint } from '../rest/direct-route';
import { createRestApi, MAX_BODY_BYTES, type HotReads, type ServedDocuments } from '../rest/rest-api';
import { AREA_BASE, REST_ROUTES, type RestArea } from '../rest/routes';
import type { ErrorFaces } from './error-faces';
import type { RequestContexts } from './request-contexts';
import type { Step } from './step';
import { BODY_TOO_LARGE } from './with-body-limit';
import { BAD_PATH } from './with-errors';
import { requestIdOf, type BeginRequest } from './with-request-id';

export interface RestOptions {
  schema: GraphQLSchema;
  logger: Logger;
  servers: string[];
  contexts: RequestContexts;
  errors: ErrorFaces;
  /** Sources of the documents the service keeps built (routes with `servedDocument`). */
  documents?: ServedDocuments;
  /** The direct routes' hot reads (a gateway read the read cache holds), by field. */
  hotReads?: HotReads;
}

export interface RestAreas {
  /** Each area's express router (SOFA, and express routes for the direct operations), by base path. */
  routers: Array<[path: string, router: express.Router]>;
  /** The gateway's hot routes, for withDirectRoutes. */
  direct: DirectEndpoint[];
}

/** REST (src/rest): each area's routes (the domains' `<domain>.routes.ts`), served from the GraphQL schema. */
export function restAreas(opts: RestOptions): RestAreas {
  const routers: RestAreas['routers'] = [];
  const direct: DirectEndpoint[] = [];
  for (const area of Object.keys(AREA_BASE) as RestArea[]) {
    // An area without routes yet has nothing to mount; the JSON 404 answers its paths.
    if (!REST_ROUTES.some((r) => r.area === area)) continue;
    const rest = createRestApi(area, {
      schema: opts.schema,
      logger: opts.logger,
      servers: opts.servers,
      makeContext: (req) => opts.contexts.forHttp(requestIdOf(req.res!), req),
      onUnexpected: opts.errors.reportUnexpected,
      documents: opts.documents,
      hotReads: opts.hotReads,
    });
    routers.push([AREA_BASE[area], rest.router]);
    direct.push(...rest.direct);
  }
  return { routers, direct };
}

/**
 * Step: the gateway's hot routes (`direct: true` in gateway.routes.ts) answered here, before
 * express. Only an exact path with a plain body matches; anything else goes on to express, where
 * the same operation is mounted. Same operation, limits, errors and logs as through express; it
 * saves express's per-request setup, router and body parser (BENCHMARKS.md, "Gateway").
 */
export function withDirectRoutes(
  endpoints: DirectEndpoint[],
  opts: { begin: BeginRequest; contexts: RequestContexts; errors: ErrorFaces },
): Step {
  const serve = directDispatcher(endpoints, {
    maxBody: MAX_BODY_BYTES,
    tooLarge: BODY_TOO_LARGE,
    badPath: BAD_PATH,
    begin: opts.begin,
    context: opts.contexts.forHttp,
    unexpected: opts.errors.publicError,
  });
  return (req, res, next) => {
    if (!serve(req, res)) next();
  };
}
