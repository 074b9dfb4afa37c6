import type { Logger } from '../logger';
import type { Session } from './session';

/**
 * Per-request context shared by GraphQL over HTTP, GraphQL over WebSocket and REST: who is calling
 * and how to log about it. Services are not in it: resolvers get theirs through their constructors.
 */
export interface RequestContext {
  requestId: string;
  /** Who is calling, from which address, with which credentials (checked when a service asks). */
  session: Session;
  /** `Idempotency-Key` header of the request, for gateway invokes. */
  idempotencyKey?: string;
  logger: Logger;
}
