import type { DeveloperEntity } from '../modules/accounts/developer.entity';
import type { ApiKeyPrincipal, ApiKeyScope, Authority } from './authority';
import { apiKeyOf, type Credentials } from './credentials';

/** Finds the principal of a presented API key (the keys module, with its cache and revocations). */
export interface ApiKeyAuthenticator {
  authenticate(creds: Credentials): Promise<ApiKeyPrincipal>;
  /** Counts one request of the key against its daily quota (429 RATE_LIMITED past it). */
  countDaily(principal: ApiKeyPrincipal): Promise<void>;
  /** authenticate when it needs no waiting (a key checked before, its request counted); else undefined. */
  authenticateNow(creds: Credentials): ApiKeyPrincipal | undefined;
  /** countDaily when it needs no waiting (the key has no daily quota): true once counted, else false. */
  countDailyNow(principal: ApiKeyPrincipal): boolean;
}

/**
 * Who is calling, for one request: built once at the edge from the credentials as presented and
 * the client's address, and handed to the services. Each identity is checked at most once per
 * request (the first ask checks it, later asks get the same answer, a refusal included); every
 * decision about it is Authority's.
 */
export class Session {
  private developerCheck?: Promise<DeveloperEntity>;
  private apiKeyCheck?: Promise<ApiKeyPrincipal>;
  /** The principal once known without waiting (apiKeyNow). */
  private apiKeyKnown?: ApiKeyPrincipal;

  constructor(
    readonly credentials: Credentials,
    /** The client's address (TRUST_PROXY decides whether X-Forwarded-For is believed). */
    readonly clientIp: string,
    private readonly authority: Authority,
    private readonly apiKeys: ApiKeyAuthenticator,
  ) {}

  /** A session of the same credentials that checks them again: the next request on a WebSocket. */
  renewed(): Session {
    return new Session(this.credentials, this.clientIp, this.authority, this.apiKeys);
  }

  /**
   * The same credentials checked again by a subscription (before a notification, or now and then):
   * a revoked or expired key fails as before, but nothing is charged to the developer's request
   * budget, which the notifications of many subscribers would otherwise use up.
   */
  rechecked(): Session {
    return new Session({ ...this.credentials, recheck: true }, this.clientIp, this.authority, this.apiKeys);
  }

  /** The calling developer (a developer token); 401 UNAUTHENTICATED otherwise. */
  developer(): Promise<DeveloperEntity> {
    this.developerCheck ??= this.authority.requireDeveloper(this.credentials);
    return this.developerCheck;
  }

  /** The calling developer, who must be the developer `id` of the path (403 otherwise). */
  async self(id: string): Promise<DeveloperEntity> {
    const caller = await this.developer();
    this.authority.requireSelf(caller, id);
    return caller;
  }

  /** The calling developer, who must have created `webhook` (403 otherwise). */
  async webhookOwner(webhook: { developerId: string }): Promise<DeveloperEntity> {
    const caller = await this.developer();
    this.authority.requireWebhookOwner(caller, webhook);
    return caller;
  }

  /** The calling developer, who must be an administrator (403 naming `action` otherwise). */
  async admin(action: string): Promise<DeveloperEntity> {
    return this.authority.requireAdmin(await this.developer(), action);
  }

  /**
   * The principal of the API key presented; 401 INVALID_API_KEY otherwise (expired included), 403
   * KEY_POLICY_DENIED outside the key's origins or addresses.
   */
  apiKey(): Promise<ApiKeyPrincipal> {
    this.apiKeyCheck ??= this.apiKeys.authenticate(this.credentials).then((principal) => {
      this.authority.requireKeyRequest(principal, { origin: this.credentials.origin, clientIp: this.clientIp });
      return principal;
    });
    return this.apiKeyCheck;
  }

  /**
   * apiKey, when it is decided without waiting: the principal of a key this instance has checked
   * before and that this request may use; undefined when only apiKey can tell (a refusal included).
   */
  apiKeyNow(): ApiKeyPrincipal | undefined {
    if (this.apiKeyKnown !== undefined || this.apiKeyCheck !== undefined) return this.apiKeyKnown;
    const principal = this.apiKeys.authenticateNow(this.credentials);
    if (principal === undefined) return undefined;
    try {
      this.authority.requireKeyRequest(principal, { origin: this.credentials.origin, clientIp: this.clientIp });
    } catch (e) {
      this.apiKeyCheck = Promise.reject(e as Error);
      this.apiKeyCheck.catch(() => undefined);
      return undefined;
    }
    this.apiKeyKnown = principal;
    this.apiKeyCheck = Promise.resolve(principal);
    return principal;
  }

  /**
   * keyCall, when it is decided without waiting: true once the call is allowed by the key's method
   * policy and counted (the key has no daily quota); false, nothing counted, when only keyCall can tell.
   */
  keyCallNow(principal: ApiKeyPrincipal, names: readonly string[]): boolean {
    return this.authority.allowsKeyMethod(principal, names) && this.apiKeys.countDailyNow(principal);
  }

  /**
   * One call of the key by method (`names`: its names, e.g. a gateway method's name and signature,
   * or a JSON-RPC method): 403 KEY_POLICY_DENIED outside its methods, then counted against its
   * daily quota (429 past it). A call refused by a policy is not counted.
   */
  async keyCall(principal: ApiKeyPrincipal, names: readonly string[]): Promise<void> {
    this.authority.requireKeyMethod(principal, names);
    await this.apiKeys.countDaily(principal);
  }

  /**
   * The caller of a route open to a developer token or an API key: the key when one is presented
   * (401 INVALID_API_KEY if it does not verify), else the token (401 UNAUTHENTICATED).
   */
  async developerOrKey(): Promise<{ developerId: string; keyId?: string }> {
    if (apiKeyOf(this.credentials) !== undefined) {
      const principal = await this.apiKey();
      return { developerId: principal.developerId, keyId: principal.keyId };
    }
    return { developerId: (await this.developer()).id };
  }

  /** A transaction record's reader: its developer's token or the key that sent it (404 for anyone else). */
  async transactionReader(record: { developerId: string; apiKeyId: string | null }): Promise<void> {
    this.authority.requireTransactionReader(record, await this.developerOrKey());
  }

  /**
   * apiKeyFor, when it is decided without waiting: the principal of a key this instance has checked
   * before that may call `contract` with `scope`; undefined, nothing refused, when only apiKeyFor can tell.
   */
  apiKeyForNow(contract: { id: string; ownerId: string }, scope: ApiKeyScope): ApiKeyPrincipal | undefined {
    const principal = this.apiKeyNow();
    return principal && this.authority.allowsKeyAccess(principal, contract, scope) ? principal : undefined;
  }

  /** The API key's principal, allowed to call `contract` with `scope` (owner, restriction, scope). */
  async apiKeyFor(contract: { id: string; ownerId: string }, scope: ApiKeyScope): Promise<ApiKeyPrincipal> {
    const principal = await this.apiKey();
    this.authority.requireKeyAccess(principal, contract, scope);
    return principal;
  }

  /**
   * The caller as a reader of contract data, before the contract is known: the API key when one is
   * presented (401 INVALID_API_KEY when it is not valid), else the developer token (401 UNAUTHENTICATED).
   */
  async contractReader(): Promise<ContractReader> {
    if (apiKeyOf(this.credentials) !== undefined) return { apiKey: await this.apiKey() };
    return { developer: await this.developer() };
  }

  /** The caller, allowed to read `contract`: its owner's token, or a key with `read` allowed on it (403 otherwise). */
  async readerOf(contract: { id: string; ownerId: string }): Promise<ContractReader> {
    const reader = await this.contractReader();
    if ('apiKey' in reader) this.authority.requireKeyAccess(reader.apiKey, contract, 'read');
    else this.authority.requireContractOwner(reader.developer, contract);
    return reader;
  }
}

/** Who reads a contract's data: its owner with a developer token, or an API key allowed on it. */
export type ContractReader = { developer: DeveloperEntity } | { apiKey: ApiKeyPrincipal };

/** Makes the session of a request (the composition root binds it to the app's Authority and keys). */
export type SessionFactory = (credentials: Credentials, clientIp: string) => Session;
