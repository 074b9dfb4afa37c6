import type { Logger } from '../logger';
import type { Session } from './session';

/**
 * Per-request context shared by GraphQL over HTTP, GraphQL over WebSocket and REST: who is calling
 * and how to log about it. Services are not in it: resolvers get theirs through their constructors.
 */
export interface RequestContext {
  requestId: string;
  /** The client's address (TRUST_PROXY decides whether X-Forwarded-For is believed). */
  clientIp: string;
  /** Who is calling (the credentials as presented, checked when a service asks). */
  session: Session;
  /** `Idempotency-Key` header of the request, for gateway invokes. */
  idempotencyKey?: string;
  logger: Logger;
}
