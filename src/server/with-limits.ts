import type { Credentials } from '../auth/credentials';
import { clientLimitKey } from '../kernel/client-address';
import type { RequestLimit } from '../kernel/rate-limit';
import type { ErrorFaces } from './error-faces';
import { rememberCharge } from './answer-charge';
import { requestIdOf } from './with-request-id';
import { sendJsonRpcRefusal } from './rpc-http';
import { ETHERSCAN_PREFIX, sendEtherscanRefusal } from './etherscan-http';
import { pathOf, type Step } from './step';

export { ANSWER_BYTES_PER_POINT, answerSurcharge } from './answer-charge';

/** Paths never rate limited: probes and scrapes must work while a flood is refused. */
const OPS_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

export interface LimitsOptions {
  /** PUBLIC_RATE_LIMIT per client address, DEVELOPER_RATE_LIMIT per developer. */
  limits: { public: RequestLimit; developer: RequestLimit };
  /** The developer a request is charged to, if any (Authority.chargeableDeveloper). */
  chargeableDeveloper: (credentials: Credentials) => string | undefined;
  credentialsOf: (req: Parameters<Step>[0]) => Credentials;
  clientAddress: (req: Parameters<Step>[0]) => string;
  errors: ErrorFaces;
}

/**
 * Step: charges each request to its developer's budget, else to its client address's (an IPv6
 * client's /64: clientLimitKey), before any
 * face runs. A refused request gets 429 RATE_LIMITED with Retry-After: REST's error body, or on
 * /graphql GraphQL's errors with 200 (docs/api.md, "Conventions"). A large answer (its Content-Length) is charged
 * `answerSurcharge` points more to the same budget once sent.
 */
export function withLimits(opts: LimitsOptions): Step {
  const { limits, errors } = opts;
  return (req, res, next) => {
    const path = pathOf(req);
    if (OPS_PATHS.has(path)) return next();
    const credentials = opts.credentialsOf(req);
    const developerId = opts.chargeableDeveloper(credentials);
    const [limit, key] =
      developerId !== undefined
        ? [limits.developer, developerId]
        : [limits.public, clientLimitKey(opts.clientAddress(req))];
    if (!limit.enabled) return next();
    limit.consume(key).then(
      () => {
        credentials.chargedTo = developerId;
        rememberCharge(res, limit, key);
        next();
      },
      (error: unknown) => {
        const requestId = requestIdOf(res);
        const e = errors.publicError(error, requestId);
        if (path === '/graphql') errors.sendGraphQL(res, [errors.graphqlOf(e, requestId)], e.headers);
        else if (path.startsWith('/rpc/')) sendJsonRpcRefusal(res, e);
        else if (path.startsWith(ETHERSCAN_PREFIX)) sendEtherscanRefusal(res, e);
        else errors.http(res, e);
        req.resume();
      },
    );
  };
}
