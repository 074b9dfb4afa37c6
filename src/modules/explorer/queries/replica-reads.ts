import type { MiddlewareFn } from 'type-graphql';
import type { RequestContext } from '../../../auth/request-context';
import { readFromReplica } from '../../../database/read-routing';

/**
 * The explorer's fields for a request without credentials read the index from DATABASE_READ_URL's
 * replica; with credentials (bearer token or API key, even a malformed one) from the primary
 * (docs/api.md, "Operations": a client reads its own writes).
 */
export const AnonymousReadsFromReplica: MiddlewareFn<RequestContext> = ({ context }, next) => {
  const c = context.session.credentials;
  const anonymous = !c.bearer && !c.apiKey && !c.malformedAuthorization;
  return anonymous ? readFromReplica(next) : next();
};
