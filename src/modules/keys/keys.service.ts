import { hash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import { AppError } from '../../errors/app-error';
import type { Logger } from '../../logger';
import { isUuid } from '../../kernel/pagination';
import { apiKeyOf, type Credentials } from '../../auth/credentials';
import type { ApiKeyPrincipal, Authority } from '../../auth/authority';
import type { ProjectService } from '../projects';
import { ApiKeyEntity, type ApiKeyScope } from './api-key.entity';
import type { ApiKeyInfo, ApiKeyList, CreateApiKeyInput, CreatedApiKey, RevokedApiKey } from './keys.types';
import { REVOCATION_CHANNEL, type RevocationChannel } from './revocation-channel';
import type { Session } from '../../auth/session';
import { LOCK_KEYS } from '../../kernel/lock-keys';

/** `svc_` + 43 base64url characters (32 random bytes), API.md §6. */
export const API_KEY_PATTERN = /^svc_[A-Za-z0-9_-]{43}$/;
export const API_KEY_PREFIX_LENGTH = 12;
const DEFAULT_SCOPES: ApiKeyScope[] = ['read', 'write'];
/** Cached answers are re-read this often even without a notification, as a safety net. */
const CACHE_TTL_MS = 60_000;
/** How long a revocation waits for every instance to acknowledge it before answering anyway. */
export const REVOCATION_ACK_TIMEOUT_MS = 2000;
/** lastUsedAt is written in batches at this pace (API.md §7 allows 60 s of lag). */
const TOUCH_FLUSH_MS = 30_000;

export const hashApiKey = (key: string) => hash('sha256', key, 'hex');

export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = `svc_${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, API_KEY_PREFIX_LENGTH), hash: hashApiKey(key) };
}

type CacheEntry = { principal: ApiKeyPrincipal } | { invalid: true };

const toInfo = (k: ApiKeyEntity): ApiKeyInfo => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  contractId: k.contractId,
  projectId: k.projectId,
  status: k.status,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt,
  revokedAt: k.revokedAt,
});

/** Issues, lists and revokes API keys, and checks them on every gateway call. */
/** Active API keys one developer may hold (API.md §1a): the per-key limit cannot be multiplied past it. */
export const MAX_ACTIVE_KEYS = 100;

export class ApiKeyService {
  private readonly cache = new LRUCache<string, CacheEntry>({ max: 10_000, ttl: CACHE_TTL_MS });
  private readonly touched = new Set<string>();
  /** Bumped by every revocation heard: a lookup that raced one must not be cached. */
  private generation = 0;
  private readonly flushTimer: NodeJS.Timeout;

  constructor(
    private readonly ds: DataSource,
    private readonly auth: Authority,
    private readonly projects: ProjectService,
    private readonly revocations: RevocationChannel,
    private readonly logger: Logger,
  ) {
    this.flushTimer = setInterval(() => void this.flushTouches(), TOUCH_FLUSH_MS);
    this.flushTimer.unref();
  }

  /**
   * The developer of the request's API key when it is an active key this instance has already
   * accepted (its cache only: no database access); undefined for any other key.
   */
  knownDeveloper(creds: Credentials): string | undefined {
    const key = apiKeyOf(creds);
    if (key === undefined || !API_KEY_PATTERN.test(key) || !this.revocations.isListening) return undefined;
    const entry = this.cache.get(this.keyHash(creds, key));
    return entry === undefined || 'invalid' in entry ? undefined : entry.principal.developerId;
  }

  /**
   * The hash of a request's key, computed once per request and kept on its credentials: the edge's
   * charge (knownDeveloper) and the key check (authenticate) both need it.
   */
  private keyHash(creds: Credentials, key: string): string {
    return (creds.apiKeyHash ??= hashApiKey(key));
  }

  /** Called by the revocation channel for every key revoked anywhere. */
  forget(keyHash: string): void {
    this.generation += 1;
    this.cache.delete(keyHash);
  }

  /** Called when notifications may have been missed. */
  forgetAll(): void {
    this.generation += 1;
    this.cache.clear();
  }

  async issue(session: Session, developerId: string, input: CreateApiKeyInput): Promise<CreatedApiKey> {
    const caller = await session.self(developerId);
    const scopes = [...new Set(input.scopes ?? DEFAULT_SCOPES)] as ApiKeyScope[];
    if (input.projectId) await this.projects.requireOwned(caller, input.projectId);
    if (input.contractId) {
      const [owned] = (await this.ds.query('SELECT 1 FROM contracts WHERE id = $1 AND owner_id = $2', [
        input.contractId,
        caller.id,
      ])) as unknown[];
      if (!owned) throw new AppError('NOT_FOUND', 'No such contract');
    }
    const { key, prefix, hash } = generateApiKey();
    const row = await this.ds.transaction(async (tx) => {
      // One developer's issues are serialized so that concurrent requests cannot pass the cap together.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [LOCK_KEYS.apiKeys(caller.id)]);
      const [{ active }] = (await tx.query(
        `SELECT count(*)::int AS active FROM api_keys WHERE developer_id = $1 AND status = 'active'`,
        [caller.id],
      )) as [{ active: number }];
      if (active >= MAX_ACTIVE_KEYS) {
        throw new AppError(
          'INVALID_STATE',
          `A developer holds at most ${MAX_ACTIVE_KEYS} active API keys; revoke one before creating another`,
          { activeKeys: active, limit: MAX_ACTIVE_KEYS },
        );
      }
      return tx.getRepository(ApiKeyEntity).save({
        developerId: caller.id,
        name: input.name?.trim() || null,
        prefix,
        keyHash: hash,
        scopes,
        contractId: input.contractId ?? null,
        projectId: input.projectId ?? null,
        status: 'active',
        lastUsedAt: null,
        revokedAt: null,
      });
    });
    this.logger.info({ developerId: caller.id, keyId: row.id, prefix }, 'API key issued');
    return {
      id: row.id,
      apiKey: key,
      prefix,
      scopes,
      name: row.name,
      contractId: row.contractId,
      projectId: row.projectId,
      status: 'active',
      createdAt: row.createdAt,
    };
  }

  async list(session: Session, developerId: string): Promise<ApiKeyList> {
    const caller = await session.self(developerId);
    const rows = await this.ds
      .getRepository(ApiKeyEntity)
      .find({ where: { developerId: caller.id }, order: { createdAt: 'ASC', id: 'ASC' } });
    return { items: rows.map(toInfo) };
  }

  /**
   * Revokes a key of the caller; revoking twice answers the same. The answer is given only after
   * every instance listening on the database has acknowledged the revocation (2 s at most), so
   * every instance refuses the key from the next request on.
   */
  async revoke(session: Session, keyId: string): Promise<RevokedApiKey> {
    const caller = await session.developer();
    if (!isUuid(keyId)) throw new AppError('NOT_FOUND', 'No such API key');
    let acks: ReturnType<RevocationChannel['expect']> | undefined;
    const result = await this.ds
      .transaction(async (m) => {
        const [rows] = (await m.query(
          `UPDATE api_keys SET status = 'revoked', revoked_at = coalesce(revoked_at, now())
          WHERE id = $1 AND developer_id = $2
          RETURNING key_hash, revoked_at, now() AS notified_at`,
          [keyId, caller.id],
        )) as [Array<{ key_hash: string; revoked_at: Date; notified_at: Date }>, number];
        const row = rows[0];
        if (!row) throw new AppError('NOT_FOUND', 'No such API key');
        // Collect the instances' acknowledgements from before the notification is delivered (at commit).
        acks = this.revocations.expect(row.key_hash);
        await m.query('SELECT pg_notify($1, $2)', [REVOCATION_CHANNEL, row.key_hash]);
        return { ...row, acks };
      })
      .catch((err: unknown) => {
        acks?.cancel();
        throw err;
      });
    this.forget(result.key_hash);
    const { missing } = await result.acks.settled(this.ds, REVOCATION_ACK_TIMEOUT_MS, result.notified_at);
    if (missing.length > 0) {
      this.logger.warn(
        { keyId, instances: missing },
        'Instances did not acknowledge an API key revocation in time; they refuse the key once they hear it',
      );
    }
    this.logger.info({ developerId: caller.id, keyId }, 'API key revoked');
    return { id: keyId, status: 'revoked', revokedAt: result.revoked_at };
  }

  /** The key presented in x-api-key (or as a Bearer svc_ token); 401 INVALID_API_KEY otherwise. */
  async authenticate(creds: Credentials): Promise<ApiKeyPrincipal> {
    const key = apiKeyOf(creds);
    if (!key) {
      throw new AppError(
        'INVALID_API_KEY',
        'An API key is required (x-api-key header or Authorization: Bearer svc_...)',
      );
    }
    if (!API_KEY_PATTERN.test(key)) throw new AppError('INVALID_API_KEY', 'The API key is invalid or revoked');
    const hash = this.keyHash(creds, key);
    let entry = this.revocations.isListening ? this.cache.get(hash) : undefined;
    if (!entry) {
      const generation = this.generation;
      const [row] = (await this.ds.query(
        `SELECT id, developer_id, scopes, contract_id, status FROM api_keys WHERE key_hash = $1`,
        [hash],
      )) as Array<{
        id: string;
        developer_id: string;
        scopes: ApiKeyScope[];
        contract_id: string | null;
        status: string;
      }>;
      entry =
        row && row.status === 'active'
          ? {
              principal: {
                keyId: row.id,
                developerId: row.developer_id,
                scopes: row.scopes,
                contractId: row.contract_id,
              },
            }
          : { invalid: true };
      if (this.revocations.isListening && generation === this.generation) this.cache.set(hash, entry);
    }
    if ('invalid' in entry) throw new AppError('INVALID_API_KEY', 'The API key is invalid or revoked');
    this.touched.add(entry.principal.keyId);
    await this.auth.countRequest(entry.principal.developerId, creds);
    return entry.principal;
  }

  /** Writes lastUsedAt for the keys used since the last flush, in one statement. */
  async flushTouches(): Promise<void> {
    if (this.touched.size === 0) return;
    const ids = [...this.touched];
    this.touched.clear();
    await this.ds
      .query('UPDATE api_keys SET last_used_at = now() WHERE id = ANY($1::uuid[])', [ids])
      .catch((err: unknown) => this.logger.warn({ err }, 'could not record API key use'));
  }

  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flushTouches();
  }
}
