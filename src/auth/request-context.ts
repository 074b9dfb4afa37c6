import type { Logger } from '../kernel/logger';
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
  /** The request asked `Prefer: respond-async`: an invoke answers once accepted, not once mined. */
  respondAsync?: boolean;
  /**
   * Set by a resolver that accepted the request for later processing (`Prefer: respond-async`):
   * REST answers it 202 with the fields that are set.
   */
  accepted?: boolean;
  /**
   * REST's 202 body for a request accepted for later whose result is not the answer (a deployment:
   * its transaction record to follow, not the contract).
   */
  acceptedBody?: Record<string, unknown>;
  logger: Logger;
}
