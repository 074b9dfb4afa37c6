import ipaddr from 'ipaddr.js';
import type { DataSource } from 'typeorm';
import { AppError } from '../kernel/errors/app-error';
import { apiKeyOf, type Credentials } from './credentials';
import type { RequestLimit } from '../kernel/rate-limit';
import type { AccessTokens, TokenClaims } from './access-token';
import { DeveloperEntity } from '../modules/accounts/developer.entity';

/** What an API key that verified may do (the key service finds it; this class decides with it). */
export interface ApiKeyPrincipal {
  keyId: string;
  developerId: string;
  scopes: ApiKeyScope[];
  /** Set when the key is restricted to contracts (docs/api.md, "API keys": policies). */
  contractIds: string[] | null;
  /** The key's other policies; null fields are unrestricted. */
  policies: KeyPolicies;
}

/** An address block of an `allowedIps` policy, parsed by ipaddr.js. */
export type IpRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** The policies of a key the authority checks on every face (docs/api.md, "API keys": policies). */
export interface KeyPolicies {
  allowedOrigins: string[] | null;
  allowedIps: IpRange[] | null;
  allowedMethods: string[] | null;
  expiresAt: Date | null;
  rateLimitPerSecond: number | null;
  dailyQuota: number | null;
  /** Spend caps; null: none set (docs/api.md, "API keys": spend caps). */
  spend: SpendCaps | null;
}

/** A key's spend caps; a null cap is unrestricted. */
export interface SpendCaps {
  maxValueWeiPerTx: bigint | null;
  maxValueWeiPerDay: bigint | null;
  maxFeePerGasWei: bigint | null;
  maxGasPerDay: bigint | null;
}

/** What a request presents besides its key: where it comes from. */
export interface KeyRequest {
  /** The `Origin` header, when sent. */
  origin?: string;
  /** The client's address (TRUST_PROXY decides whether X-Forwarded-For is believed). */
  clientIp: string;
}

/** Parses an `allowedIps` entry (an address or a CIDR block) with ipaddr.js; throws on anything else. */
export function parseIpRange(entry: string): IpRange {
  const text = entry.trim();
  const address = text.split('/')[0]!;
  // ipaddr.js also reads the legacy IPv4 forms (`10.0.0`, `0x7f.1`, octal `010.0.0.1`): an
  // allowlist entry must mean what it looks like, so IPv4 is taken in four-part decimal only.
  const strict = address.includes(':') ? ipaddr.IPv6.isValid(address) : ipaddr.IPv4.isValidFourPartDecimal(address);
  if (!strict) throw new Error(`not an IP address or CIDR block: ${entry}`);
  if (text.includes('/')) return ipaddr.parseCIDR(text);
  const addr = ipaddr.parse(text);
  return [addr, addr.kind() === 'ipv4' ? 32 : 128];
}

/** Whether `clientIp` (IPv4-mapped IPv6 read as IPv4) lies in one of `ranges`. */
function ipAllowed(clientIp: string, ranges: IpRange[]): boolean {
  if (!ipaddr.isValid(clientIp)) return false;
  const addr = ipaddr.process(clientIp);
  return ranges.some(([net, bits]) => {
    if (net.kind() === addr.kind()) return addr.match(net, bits);
    // A block written as IPv4-mapped IPv6 still matches the IPv4 client it maps.
    if (net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
      return addr.kind() === 'ipv4' && addr.match((net as ipaddr.IPv6).toIPv4Address(), bits - 96);
    }
    return false;
  });
}

export type ApiKeyScope = 'read' | 'write';

/**
 * Every authorization decision of the service: who the caller is (developer tokens), whether they
 * may act on a developer id (self), review deployments (admin), or call a contract with an API
 * key (owner, contract restriction, scope); and the per-developer request budget.
 */
export class Authority {
  constructor(
    private readonly ds: DataSource,
    private readonly tokens: AccessTokens,
    private readonly opts: { adminSubjects: string[] },
    private readonly developerLimit?: RequestLimit,
  ) {}

  /**
   * The developer of `token` when it is a developer token this service signed and that has not
   * expired (no database access: a token revoked by a logout still names its developer here).
   */
  developerOfToken(token: string): string | undefined {
    try {
      return this.tokens.verify(token).developerId;
    } catch {
      return undefined;
    }
  }

  /**
   * The claims of `token` when it is a developer token this service signed and that has not
   * expired (no database access: a token revoked by a logout is still described here).
   */
  tokenClaims(token: string): TokenClaims | undefined {
    try {
      return this.tokens.verify(token);
    } catch {
      return undefined;
    }
  }

  /**
   * The developer the HTTP edge charges a request to: the one of a developer token that verifies,
   * or of an API key this instance has already accepted (`knownKey`, its cache). Any other
   * request, a made-up credential included, is anonymous (a key's first request on an instance
   * too: the key service charges its developer once it has checked it).
   */
  chargeableDeveloper(creds: Credentials, knownKey: (creds: Credentials) => string | undefined): string | undefined {
    if (apiKeyOf(creds) !== undefined) return knownKey(creds);
    return creds.bearer !== undefined ? this.developerOfToken(creds.bearer) : undefined;
  }

  /**
   * Counts one authenticated request against the developer's budget over all keys and tokens,
   * unless the HTTP edge already charged this request to that developer.
   */
  async countRequest(developerId: string, creds: Credentials): Promise<void> {
    if (this.requestCounted(developerId, creds)) return;
    await this.developerLimit?.consume(developerId);
  }

  /**
   * Whether countRequest has nothing to count: the edge charged the request to the developer, it
   * is a re-check and not a request, or no budget is set.
   */
  requestCounted(developerId: string, creds: Credentials): boolean {
    return (
      creds.chargedTo === developerId ||
      creds.recheck === true ||
      this.developerLimit === undefined ||
      !this.developerLimit.enabled
    );
  }

  /** The developer behind a valid JWT; 401 for none, a malformed, forged or expired one, or an API key. */
  async requireDeveloper(creds: Credentials): Promise<DeveloperEntity> {
    if (creds.malformedAuthorization) {
      throw new AppError('UNAUTHENTICATED', 'The Authorization header must be "Bearer <access token>"');
    }
    if (!creds.bearer) {
      throw new AppError('UNAUTHENTICATED', 'A developer access token is required (Authorization: Bearer <token>)');
    }
    if (creds.bearer.startsWith('svc_')) {
      throw new AppError('UNAUTHENTICATED', 'This operation needs a developer access token, not an API key');
    }
    const claims = this.tokens.verify(creds.bearer);
    const developer = await this.ds.getRepository(DeveloperEntity).findOneBy({ id: claims.developerId });
    if (!developer) throw new AppError('UNAUTHENTICATED', 'The access token is invalid');
    // The row is read on every request, so a logout on any instance takes effect everywhere at once.
    if (claims.generation !== developer.tokenGeneration) {
      throw new AppError('UNAUTHENTICATED', 'The access token was revoked by a logout; log in again');
    }
    await this.countRequest(developer.id, creds);
    return developer;
  }

  /** Paths with a developer `{id}` accept only the caller's own id. */
  requireSelf(caller: DeveloperEntity, id: string): void {
    if (caller.id !== id) {
      throw new AppError('FORBIDDEN', "Only the caller's own developer id is accepted here");
    }
  }

  /** Admins are developers whose certificate serialNumber or id is in ADMIN_SUBJECTS. */
  requireAdmin(caller: DeveloperEntity, action: string): DeveloperEntity {
    const subjects = this.opts.adminSubjects;
    if (!subjects.includes(caller.id) && !(caller.serialNumber && subjects.includes(caller.serialNumber))) {
      throw new AppError('FORBIDDEN', `Only administrators may ${action}`);
    }
    return caller;
  }

  /** Only the developer who created a webhook may act on it (test, redeliver, rotate its secret). */
  requireWebhookOwner(caller: DeveloperEntity, webhook: { developerId: string }): void {
    if (caller.id !== webhook.developerId) {
      throw new AppError('FORBIDDEN', 'Only the developer who created the webhook may act on it');
    }
  }

  /** Only the owner of a contract may read what belongs to it with a developer token. */
  requireContractOwner(caller: DeveloperEntity, contract: { ownerId: string }): void {
    if (caller.id !== contract.ownerId) {
      throw new AppError('FORBIDDEN', 'Only the owner of the contract may read it');
    }
  }

  /**
   * A transaction record is read by the developer's token or by the API key that sent it. Anyone
   * else, another key of the same developer included, is told it does not exist (404, as for an
   * unknown id): record ids are not revealed to those who may not read them.
   */
  requireTransactionReader(
    record: { developerId: string; apiKeyId: string | null },
    caller: { developerId: string; keyId?: string },
  ): void {
    const allowed =
      caller.keyId !== undefined ? record.apiKeyId === caller.keyId : record.developerId === caller.developerId;
    if (!allowed) throw new AppError('NOT_FOUND', 'No such transaction');
  }

  /** Whether the key may call `contract` with `scope` (requireKeyAccess without the error). */
  allowsKeyAccess(principal: ApiKeyPrincipal, contract: { id: string; ownerId: string }, scope: ApiKeyScope): boolean {
    return (
      contract.ownerId === principal.developerId &&
      (!principal.contractIds || principal.contractIds.includes(contract.id)) &&
      principal.scopes.includes(scope)
    );
  }

  /** An API key may call a contract of its own developer, within its contract restriction and scopes. */
  requireKeyAccess(principal: ApiKeyPrincipal, contract: { id: string; ownerId: string }, scope: ApiKeyScope): void {
    if (contract.ownerId !== principal.developerId) {
      throw new AppError('FORBIDDEN', 'The API key does not belong to the owner of this contract');
    }
    if (principal.contractIds && !principal.contractIds.includes(contract.id)) {
      throw new AppError('KEY_NOT_FOR_CONTRACT', 'The API key is restricted to other contracts');
    }
    if (!principal.scopes.includes(scope)) {
      throw new AppError('INSUFFICIENT_SCOPE', `The API key lacks the "${scope}" scope`, { required: scope });
    }
  }

  /**
   * The policies of a key that hold for the whole request (docs/api.md, "API keys": refusals): not
   * expired (401 INVALID_API_KEY), from one of its origins (a request without Origin included, once
   * origins are set) and addresses (403 KEY_POLICY_DENIED).
   */
  requireKeyRequest(principal: ApiKeyPrincipal, request: KeyRequest, now = Date.now()): void {
    const p = principal.policies;
    if (p.expiresAt && p.expiresAt.getTime() <= now) {
      throw new AppError('INVALID_API_KEY', 'The API key expired', { expiresAt: p.expiresAt.toISOString() });
    }
    if (p.allowedOrigins && (request.origin === undefined || !p.allowedOrigins.includes(request.origin))) {
      throw new AppError(
        'KEY_POLICY_DENIED',
        request.origin === undefined
          ? 'The API key is restricted to origins and the request has no Origin'
          : 'The API key is not allowed from this origin',
        { policy: 'origin' },
      );
    }
    if (p.allowedIps && !ipAllowed(request.clientIp, p.allowedIps)) {
      throw new AppError('KEY_POLICY_DENIED', 'The API key is not allowed from this address', { policy: 'ip' });
    }
  }

  /**
   * A key restricted to methods may call only those (403 KEY_POLICY_DENIED): `names` are the ways
   * the call is named (a gateway method's name and signature, or a JSON-RPC method).
   */
  requireKeyMethod(principal: ApiKeyPrincipal, names: readonly string[]): void {
    if (!this.allowsKeyMethod(principal, names)) {
      throw new AppError('KEY_POLICY_DENIED', 'The API key may not call this method', {
        policy: 'method',
        method: names[0],
      });
    }
  }

  /** Whether the key's method policy lets it call a method of these names (requireKeyMethod without the error). */
  allowsKeyMethod(principal: ApiKeyPrincipal, names: readonly string[]): boolean {
    const allowed = principal.policies.allowedMethods;
    return !allowed || names.some((n) => allowed.includes(n));
  }
}
