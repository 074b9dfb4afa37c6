import type { ClassType } from 'type-graphql';

/** Who may call a route, as enforced by the service (docs/api.md refines the specification's "undeclared"). */
/** `dev-jwt-or-api-key`: the developer's token, or an API key (the service decides which key may). */
export type RouteAuth = 'public' | 'dev-jwt' | 'api-key' | 'dev-jwt-or-api-key';

export type RestArea = 'devportal' | 'explorer';

/** One REST route of docs/api.md and the GraphQL root field that serves it. */
export interface RestRoute {
  area: RestArea;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under the area's base path, with `{param}` placeholders as in docs/api.md. */
  path: string;
  /** `Query.name` or `Mutation.name`. */
  field: string;
  auth: RouteAuth;
  summary: string;
  /**
   * Served by `directOperation` (SOFA's operation for the field, compiled, without SOFA's HTTP
   * runtime) and matched by the HTTP server before express: the gateway's hot routes. Same paths,
   * variables, statuses and errors; SOFA still documents them.
   */
  direct?: true;
  /**
   * Response fields docs/api.md writes as optional, left out of the REST answer when null (omit-nulls.ts:
   * dotted paths, `[]` for each list item); GraphQL keeps them as null.
   */
  omitWhenNull?: string[];
  /** Response fields sent as headers instead of in the body (by field name); direct routes only. */
  asHeaders?: Record<string, ResponseHeader>;
  /**
   * A document the service keeps built (RestApiOptions.documents): answered with its bytes and its
   * `ETag`, 304 when `If-None-Match` names it. SOFA still documents the route and serves it when no
   * source is given.
   */
  servedDocument?: true;
}

/** A response header carrying a field of the operation's result (absent when the field is null). */
export interface ResponseHeader {
  name: string;
  description: string;
}

/** No services needed (a domain without resolvers). */
export type NoServices = Record<never, never>;

/**
 * A class type-graphql's container hands out (a resolver or a middleware), and how it is built
 * from the services the composition root made: `S` names the ones it needs.
 */
export interface ContainerEntry<S> {
  type: ClassType;
  build: (services: S) => object;
}

/**
 * What a domain adds to the service, declared once in its `index.ts`; src/modules/index.ts lists
 * the domains in order (MODULES) and the entity list, the schema and the REST routes concatenate
 * these in that order.
 */
export interface DomainManifest<S = NoServices> {
  /** The domain's folder under src/modules. */
  name: string;
  /** Its TypeORM entities. */
  entities: readonly ClassType[];
  /** Its resolvers, in the order their root fields come in the schema (each class's own in declaration order). */
  resolvers: readonly ContainerEntry<S>[];
  /** Other classes the resolvers use through the container (middleware). */
  middleware?: readonly ContainerEntry<S>[];
  /** Its REST routes (`<domain>.routes.ts`). */
  routes: readonly RestRoute[];
  /** Root fields left without a REST route on purpose, each the GraphQL twin of a route. */
  graphqlOnlyFields?: readonly string[];
}

/** A manifest, with the services its resolvers need inferred from their builders. */
export const domainManifest = <S = NoServices>(manifest: DomainManifest<S>): DomainManifest<S> => manifest;
