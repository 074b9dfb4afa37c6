import { hash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import { AppError } from '../../kernel/errors/app-error';
import type { Logger } from '../../kernel/logger';
import { isUuid } from '../../kernel/pagination';
import { apiKeyOf, type Credentials } from '../../auth/credentials';
import { parseIpRange, type ApiKeyPrincipal, type Authority, type SpendCaps } from '../../auth/authority';
import type { ProjectService } from '../projects';
import { ApiKeyEntity, type ApiKeyScope } from './api-key.entity';
import type {
  ApiKeyInfo,
  ApiKeyList,
  CreateApiKeyInput,
  CreatedApiKey,
  RevokedApiKey,
  RotateApiKeyInput,
  RotatedApiKey,
  SpendCapsInfo,
  SpendCapsInput,
  UpdateApiKeyInput,
} from './keys.types';
import { CAP_PATTERN } from './keys.types';
import { REVOCATION_CHANNEL, type RevocationChannel } from './revocation-channel';
import type { Session } from '../../auth/session';
import { LOCK_KEYS } from '../../kernel/lock-keys';
import { ownedContractCount, spentTodayByKey } from './key-spend.query';

/** `svc_` + 43 base64url characters (32 random bytes), docs/api.md, "API keys". */
export const API_KEY_PATTERN = /^svc_[A-Za-z0-9_-]{43}$/;
export const API_KEY_PREFIX_LENGTH = 12;
const DEFAULT_SCOPES: ApiKeyScope[] = ['read', 'write'];
/** Cached answers are re-read this often even without a notification, as a safety net. */
const CACHE_TTL_MS = 60_000;
/** How long a revocation waits for every instance to acknowledge it before answering anyway. */
export const REVOCATION_ACK_TIMEOUT_MS = 2000;
/** lastUsedAt is written in batches at this pace (docs/api.md, "Gateway" allows 60 s of lag). */
const TOUCH_FLUSH_MS = 30_000;
/** Requests of keys without a daily quota are added to requestsToday in batches at this pace. */
const DAILY_FLUSH_MS = 5_000;

export const hashApiKey = (key: string) => hash('sha256', key, 'hex');

export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = `svc_${randomBytes(32).toString('base64url')}`;
  return { key, prefix: key.slice(0, API_KEY_PREFIX_LENGTH), hash: hashApiKey(key) };
}

/** `validUntil`: the secret is a rotated key's previous one, accepted until then (ms). */
type CacheEntry = { principal: ApiKeyPrincipal; validUntil?: number } | { invalid: true };

/** Prefix of a revocation-channel payload that makes every instance re-read a key without revoking it. */
export const POLICY_CHANGE_PREFIX = 'policy:';
/** Grace of a rotation's previous secret when none is asked (docs/api.md, "API keys": rotation). */
const DEFAULT_GRACE_SECONDS = 86_400;

/** The policy columns of api_keys, by input field. */
const POLICY_COLUMNS = {
  contractIds: 'contract_ids',
  allowedOrigins: 'allowed_origins',
  allowedIps: 'allowed_ips',
  allowedMethods: 'allowed_methods',
  expiresAt: 'expires_at',
  rateLimitPerSecond: 'rate_limit_per_second',
  dailyQuota: 'daily_quota',
} as const;
type PolicyField = keyof typeof POLICY_COLUMNS;
type PolicyValues = { [F in PolicyField]?: UpdateApiKeyInput[F] };

/** Seconds until the next UTC midnight, when daily quotas start again. */
export function secondsToUtcMidnight(now = Date.now()): number {
  const d = new Date(now);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now) / 1000));
}

/** An `allowedOrigins` entry must be an origin exactly as browsers send it (scheme://host[:port]). */
function isExactOrigin(entry: string): boolean {
  try {
    const url = new URL(entry);
    return url.origin !== 'null' && url.origin === entry;
  } catch {
    return false;
  }
}

/** The spend cap columns of api_keys, by field of `spend`. */
const SPEND_COLUMNS = {
  maxValueWeiPerTx: 'spend_max_value_wei_per_tx',
  maxValueWeiPerDay: 'spend_max_value_wei_per_day',
  maxFeePerGasWei: 'spend_max_fee_per_gas_wei',
  maxGasPerDay: 'spend_max_gas_per_day',
} as const;
type SpendField = keyof typeof SPEND_COLUMNS;

/** A `spend` input as column values: every cap given or null (a PATCH replaces the caps as a whole). */
function spendValues(spend: SpendCapsInput | null): Record<SpendField, string | null> {
  return {
    maxValueWeiPerTx: spend?.maxValueWeiPerTx ?? null,
    maxValueWeiPerDay: spend?.maxValueWeiPerDay ?? null,
    maxFeePerGasWei: spend?.maxFeePerGasWei ?? null,
    maxGasPerDay: spend?.maxGasPerDay ?? null,
  };
}

function spendInfo(k: ApiKeyEntity): SpendCapsInfo | null {
  const caps = {
    maxValueWeiPerTx: k.spendMaxValueWeiPerTx,
    maxValueWeiPerDay: k.spendMaxValueWeiPerDay,
    maxFeePerGasWei: k.spendMaxFeePerGasWei,
    maxGasPerDay: k.spendMaxGasPerDay,
  };
  return Object.values(caps).every((v) => v === null) ? null : caps;
}

const toInfo = (k: ApiKeyEntity, requestsToday = 0, spentTodayWei = '0'): ApiKeyInfo => ({
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
  contractIds: k.contractIds,
  allowedOrigins: k.allowedOrigins,
  allowedIps: k.allowedIps,
  allowedMethods: k.allowedMethods,
  expiresAt: k.expiresAt,
  rateLimitPerSecond: k.rateLimitPerSecond,
  dailyQuota: k.dailyQuota,
  spend: spendInfo(k),
  requestsToday,
  spentTodayWei,
});

/** The UTC day of `ms` as YYYY-MM-DD, the last one remembered (counted on every call of a key). */
let lastDay = { index: -1, text: '' };
function dayOf(ms: number): string {
  const index = Math.floor(ms / 86_400_000);
  if (index !== lastDay.index) lastDay = { index, text: new Date(index * 86_400_000).toISOString().slice(0, 10) };
  return lastDay.text;
}

/** Issues, lists and revokes API keys, and checks them on every gateway call. */
/** Active API keys one developer may hold (docs/api.md, "Conventions"): the per-key limit cannot be multiplied past it. */
export const MAX_ACTIVE_KEYS = 100;

export class ApiKeyService {
  private readonly cache = new LRUCache<string, CacheEntry>({ max: 10_000, ttl: CACHE_TTL_MS });
  private readonly touched = new Set<string>();
  /** Bumped by every revocation heard: a lookup that raced one must not be cached. */
  private generation = 0;
  /** Lookups of keys not in the cache, by generation and key hash, while they run. */
  private readonly lookups = new Map<string, Promise<CacheEntry>>();
  private readonly flushTimer: NodeJS.Timeout;
  /** Requests of keys without a daily quota not yet added to requestsToday, by `keyId|day`. */
  private readonly uncounted = new Map<string, number>();
  private readonly dailyTimer: NodeJS.Timeout;

  constructor(
    private readonly ds: DataSource,
    private readonly auth: Authority,
    private readonly projects: ProjectService,
    private readonly revocations: RevocationChannel,
    private readonly logger: Logger,
    /** API_KEY_RATE_LIMIT: a key's own rateLimitPerSecond may not exceed it (0: no limit). */
    private readonly serviceRatePerSecond = 0,
  ) {
    this.flushTimer = setInterval(() => void this.flushTouches(), TOUCH_FLUSH_MS);
    this.flushTimer.unref();
    this.dailyTimer = setInterval(() => void this.flushDaily(), DAILY_FLUSH_MS);
    this.dailyTimer.unref();
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
    if (input.contractId && input.contractIds) {
      throw new AppError('VALIDATION_FAILED', 'Give contractId or contractIds, not both', { field: 'contractIds' });
    }
    const policies = await this.checkedPolicies(
      caller.id,
      {
        ...pickPolicies(input),
        contractIds: input.contractIds ?? (input.contractId ? [input.contractId] : undefined),
      },
      input.spend,
    );
    const contractIds = policies.contractIds ?? null;
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
        contractId: contractIds?.length === 1 ? contractIds[0]! : null,
        projectId: input.projectId ?? null,
        status: 'active',
        lastUsedAt: null,
        revokedAt: null,
        contractIds,
        allowedOrigins: policies.allowedOrigins ?? null,
        allowedIps: policies.allowedIps ?? null,
        allowedMethods: policies.allowedMethods ?? null,
        expiresAt: policies.expiresAt ?? null,
        rateLimitPerSecond: policies.rateLimitPerSecond ?? null,
        dailyQuota: policies.dailyQuota ?? null,
        ...spendColumnsOf(input.spend ?? null),
        previousKeyHash: null,
        previousKeyValidUntil: null,
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
    const ids = rows.map((r) => r.id);
    const [counts, spent] = await Promise.all([this.requestsToday(ids), this.spentToday(ids)]);
    return { items: rows.map((r) => toInfo(r, counts.get(r.id), spent.get(r.id))) };
  }

  /** Requests counted today (UTC) against each key's daily quota. */
  private async requestsToday(keyIds: string[]): Promise<Map<string, number>> {
    if (keyIds.length === 0) return new Map();
    const rows = (await this.ds.query(
      `SELECT key_id, requests FROM api_key_daily_requests
        WHERE key_id = ANY($1::uuid[]) AND day = (now() AT TIME ZONE 'utc')::date`,
      [keyIds],
    )) as Array<{ key_id: string; requests: number }>;
    return new Map(rows.map((r) => [r.key_id, r.requests]));
  }

  /**
   * A key's spend caps by id (null: none, or no such key): a transaction paid for with the key
   * after the request that sent it (a cancel's replacement) meets them too.
   */
  async spendCaps(keyId: string): Promise<SpendCaps | null> {
    const [row] = (await this.ds.query(
      `SELECT spend_max_value_wei_per_tx, spend_max_value_wei_per_day, spend_max_fee_per_gas_wei, spend_max_gas_per_day
         FROM api_keys WHERE id = $1`,
      [keyId],
    )) as KeyRow[];
    return row ? spendCapsOf(row) : null;
  }

  /**
   * Wei spent today (UTC) by each key: value plus gas used × effective gas price of every
   * transaction sent with it and not dropped, the door's raw ones included once their receipt has
   * settled them (a pending one counts its value until it is mined).
   */
  private async spentToday(keyIds: string[]): Promise<Map<string, string>> {
    if (keyIds.length === 0) return new Map();
    return spentTodayByKey(this.ds, keyIds);
  }

  /**
   * Checks the policies given (each kind at most MAX_POLICY_ENTRIES entries, by the input types):
   * the contracts must be the caller's, origins exact, addresses and blocks parse (ipaddr.js), the
   * rate at most the service's. 400 VALIDATION_FAILED naming the field otherwise.
   */
  private async checkedPolicies(
    developerId: string,
    p: PolicyValues,
    spend?: SpendCapsInput | null,
  ): Promise<PolicyValues> {
    const invalid = (field: string, message: string) => new AppError('VALIDATION_FAILED', message, { field });
    if (p.contractIds) {
      const ids = [...new Set(p.contractIds)];
      if ((await ownedContractCount(this.ds, ids, developerId)) !== ids.length)
        throw new AppError('NOT_FOUND', 'No such contract');
      p = { ...p, contractIds: ids };
    }
    for (const origin of p.allowedOrigins ?? []) {
      if (!isExactOrigin(origin)) {
        throw invalid(
          'allowedOrigins',
          `allowedOrigins entries must be origins such as https://app.example: ${origin}`,
        );
      }
    }
    for (const entry of p.allowedIps ?? []) {
      try {
        parseIpRange(entry);
      } catch {
        throw invalid('allowedIps', `allowedIps entries must be IP addresses or CIDR blocks: ${entry}`);
      }
    }
    if (p.allowedMethods?.some((m) => m.trim() === '')) {
      throw invalid('allowedMethods', 'allowedMethods entries must not be empty');
    }
    for (const [field, cap] of Object.entries(spend ?? {})) {
      if (cap !== null && cap !== undefined && (typeof cap !== 'string' || !CAP_PATTERN.test(cap))) {
        throw invalid(`spend.${field}`, `spend.${field} must be a decimal string (wei or gas), at most 78 digits`);
      }
    }
    if (p.expiresAt && Number.isNaN(p.expiresAt.getTime())) throw invalid('expiresAt', 'expiresAt is not a date');
    if (p.rateLimitPerSecond && this.serviceRatePerSecond > 0 && p.rateLimitPerSecond > this.serviceRatePerSecond) {
      throw invalid(
        'rateLimitPerSecond',
        `rateLimitPerSecond may be at most the service's ${this.serviceRatePerSecond} requests per second`,
      );
    }
    return p;
  }

  /**
   * Changes a key's name and policies (a field left out stays, null lifts the restriction) and
   * answers its list item once every instance has forgotten what it cached of the key, so the
   * next request anywhere meets the new policies.
   */
  async update(session: Session, keyId: string, input: UpdateApiKeyInput): Promise<ApiKeyInfo> {
    const caller = await session.developer();
    if (!isUuid(keyId)) throw new AppError('NOT_FOUND', 'No such API key');
    if (input.contractId !== undefined && input.contractIds !== undefined) {
      throw new AppError('VALIDATION_FAILED', 'Give contractId or contractIds, not both', { field: 'contractIds' });
    }
    const policies = await this.checkedPolicies(
      caller.id,
      {
        ...pickPolicies(input),
        ...(input.contractId !== undefined
          ? { contractIds: input.contractId === null ? null : [input.contractId] }
          : {}),
      },
      input.spend,
    );
    const sets: string[] = [];
    const params: unknown[] = [keyId, caller.id];
    const set = (column: string, value: unknown) => {
      params.push(value);
      sets.push(`${column} = $${params.length}`);
    };
    if (input.name !== undefined) set('name', input.name?.trim() || null);
    for (const field of Object.keys(POLICY_COLUMNS) as PolicyField[]) {
      if (policies[field] !== undefined) set(POLICY_COLUMNS[field], policies[field]);
    }
    if (input.spend !== undefined) {
      const values = spendValues(input.spend);
      for (const field of Object.keys(SPEND_COLUMNS) as SpendField[]) set(SPEND_COLUMNS[field], values[field]);
    }
    if (policies.contractIds !== undefined) {
      const ids = policies.contractIds;
      set('contract_id', ids?.length === 1 ? ids[0] : null);
    }
    const [rows] = (await this.ds.query(
      `UPDATE api_keys SET ${sets.length > 0 ? sets.join(', ') : 'id = id'}
        WHERE id = $1 AND developer_id = $2 RETURNING key_hash, previous_key_hash, status`,
      params,
    )) as [Array<{ key_hash: string; previous_key_hash: string | null; status: string }>, number];
    const row = rows[0];
    if (!row) throw new AppError('NOT_FOUND', 'No such API key');
    await this.announce(keyId, [row.key_hash, row.previous_key_hash], POLICY_CHANGE_PREFIX);
    this.logger.info({ developerId: caller.id, keyId, fields: Object.keys(input) }, 'API key policies changed');
    return this.info(caller.id, keyId);
  }

  /**
   * A new secret for the same key (id, policies, analytics); the previous one works for
   * `graceSeconds` more (default 86400), the one before it not at all.
   */
  async rotate(session: Session, keyId: string, input: RotateApiKeyInput): Promise<RotatedApiKey> {
    const caller = await session.developer();
    if (!isUuid(keyId)) throw new AppError('NOT_FOUND', 'No such API key');
    const grace = input.graceSeconds ?? DEFAULT_GRACE_SECONDS;
    const { key, prefix, hash } = generateApiKey();
    const row = await this.ds.transaction(async (m) => {
      const [old] = (await m.query(
        `SELECT key_hash, previous_key_hash, status FROM api_keys WHERE id = $1 AND developer_id = $2 FOR UPDATE`,
        [keyId, caller.id],
      )) as Array<{ key_hash: string; previous_key_hash: string | null; status: string }>;
      if (!old) throw new AppError('NOT_FOUND', 'No such API key');
      if (old.status !== 'active') throw new AppError('INVALID_STATE', 'A revoked API key cannot be rotated');
      const [[updated]] = (await m.query(
        `UPDATE api_keys SET previous_key_hash = key_hash, key_hash = $3, prefix = $4,
            previous_key_valid_until = now() + make_interval(secs => $5)
          WHERE id = $1 AND developer_id = $2 RETURNING previous_key_valid_until`,
        [keyId, caller.id, hash, prefix, grace],
      )) as [[{ previous_key_valid_until: Date }], number];
      return { ...old, validUntil: updated.previous_key_valid_until };
    });
    // The secret before the previous one stops now; the previous one is re-read with its deadline
    // (or, without grace, stops now too, its subscriptions included).
    await this.announce(keyId, [row.previous_key_hash], '');
    await this.announce(keyId, [row.key_hash], grace === 0 ? '' : POLICY_CHANGE_PREFIX);
    this.logger.info({ developerId: caller.id, keyId, prefix, graceSeconds: grace }, 'API key rotated');
    return { id: keyId, apiKey: key, prefix, previousKeyValidUntil: row.validUntil };
  }

  /** One key of the developer as listed. */
  private async info(developerId: string, keyId: string): Promise<ApiKeyInfo> {
    const row = await this.ds.getRepository(ApiKeyEntity).findOneByOrFail({ id: keyId, developerId });
    const [counts, spent] = await Promise.all([this.requestsToday([keyId]), this.spentToday([keyId])]);
    return toInfo(row, counts.get(keyId), spent.get(keyId));
  }

  /**
   * Tells every instance to forget `hashes` (a revocation with no prefix: subscriptions end too;
   * POLICY_CHANGE_PREFIX: the key is read again) and waits for them, REVOCATION_ACK_TIMEOUT_MS at most.
   */
  private async announce(keyId: string, hashes: Array<string | null>, prefix: string): Promise<void> {
    for (const hash of hashes) {
      if (!hash) continue;
      this.forget(hash);
      const { missing } = await this.revocations.announce(this.ds, `${prefix}${hash}`, REVOCATION_ACK_TIMEOUT_MS);
      if (missing.length > 0) {
        this.logger.warn({ keyId, instances: missing }, 'Instances did not acknowledge an API key change in time');
      }
    }
  }

  /**
   * Counts one request of a key with a daily quota, exactly across instances (one conditional
   * upsert in PostgreSQL): past the quota, 429 RATE_LIMITED with Retry-After to the next UTC midnight.
   */
  async countDaily(principal: ApiKeyPrincipal): Promise<void> {
    if (this.countDailyNow(principal)) return;
    const quota = principal.policies.dailyQuota;
    const rows = (await this.ds.query(
      `INSERT INTO api_key_daily_requests AS d (key_id, day, requests)
       VALUES ($1, (now() AT TIME ZONE 'utc')::date, 1)
       ON CONFLICT (key_id, day) DO UPDATE SET requests = d.requests + 1 WHERE d.requests < $2
       RETURNING requests`,
      [principal.keyId, quota],
    )) as unknown[];
    if (rows.length === 0) {
      const seconds = secondsToUtcMidnight();
      throw new AppError(
        'RATE_LIMITED',
        `The API key's daily quota of ${quota} requests is used up; it starts again at midnight UTC`,
        { policy: 'dailyQuota', dailyQuota: quota, retryAfterSeconds: seconds },
        { 'Retry-After': String(seconds) },
      );
    }
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

  /**
   * The key `keyId` as it stands now, to send again what it sent (docs/api.md, "Transactions":
   * retry): active, not expired, still allowed to write to `contract` and call one of `methods`.
   * A revoked or expired key → 409 INVALID_STATE; its policies' refusals as on a new invoke.
   */
  async senderAgain(
    keyId: string,
    contract: { id: string; ownerId: string },
    methods: readonly string[],
  ): Promise<ApiKeyPrincipal> {
    const [row] = (await this.ds.query(
      `SELECT id, developer_id, scopes, contract_id, contract_ids, status, allowed_origins, allowed_ips,
              allowed_methods, expires_at, rate_limit_per_second, daily_quota,
              spend_max_value_wei_per_tx, spend_max_value_wei_per_day, spend_max_fee_per_gas_wei,
              spend_max_gas_per_day, NULL::timestamptz AS valid_until
         FROM api_keys WHERE id = $1`,
      [keyId],
    )) as Array<KeyRow>;
    if (!row || row.status !== 'active') {
      throw new AppError('INVALID_STATE', 'The API key that sent the transaction is revoked: it cannot be retried');
    }
    const { principal } = entryOf(row) as { principal: ApiKeyPrincipal };
    if (principal.policies.expiresAt && principal.policies.expiresAt.getTime() <= Date.now()) {
      throw new AppError('INVALID_STATE', 'The API key that sent the transaction expired: it cannot be retried');
    }
    this.auth.requireKeyAccess(principal, contract, 'write');
    this.auth.requireKeyMethod(principal, methods);
    return principal;
  }

  /** The key presented in x-api-key (or as a Bearer svc_ token); 401 INVALID_API_KEY otherwise. */
  async authenticate(creds: Credentials): Promise<ApiKeyPrincipal> {
    const known = this.authenticateNow(creds);
    if (known !== undefined) return known;
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
    if (!entry) entry = await this.lookUp(hash);
    if ('invalid' in entry || (entry.validUntil !== undefined && entry.validUntil <= Date.now())) {
      throw new AppError('INVALID_API_KEY', 'The API key is invalid or revoked');
    }
    this.touched.add(entry.principal.keyId);
    await this.auth.countRequest(entry.principal.developerId, creds);
    return entry.principal;
  }

  /**
   * A key's row as a cache entry, read once for every check that misses the cache meanwhile: the
   * cached entry of a key used by thousands of subscriptions expires for all of them at once, and
   * each would otherwise ask the database. A lookup started before a revocation is heard is not
   * joined after it (the generation is part of the key).
   */
  private lookUp(hash: string): Promise<CacheEntry> {
    if (!this.revocations.isListening) return this.readEntry(hash);
    const flight = `${this.generation}:${hash}`;
    let pending = this.lookups.get(flight);
    if (!pending) {
      pending = this.readEntry(hash).finally(() => this.lookups.delete(flight));
      this.lookups.set(flight, pending);
    }
    return pending;
  }

  /** Reads a key's row; caches it unless a revocation was heard meanwhile. */
  private async readEntry(hash: string): Promise<CacheEntry> {
    const generation = this.generation;
    const [row] = (await this.ds.query(
      `SELECT id, developer_id, scopes, contract_id, contract_ids, status, allowed_origins, allowed_ips,
              allowed_methods, expires_at, rate_limit_per_second, daily_quota,
              spend_max_value_wei_per_tx, spend_max_value_wei_per_day, spend_max_fee_per_gas_wei,
              spend_max_gas_per_day,
              CASE WHEN key_hash = $1 THEN NULL ELSE previous_key_valid_until END AS valid_until
         FROM api_keys WHERE key_hash = $1 OR previous_key_hash = $1`,
      [hash],
    )) as Array<KeyRow>;
    const entry: CacheEntry = row && row.status === 'active' ? entryOf(row) : { invalid: true };
    if (this.revocations.isListening && generation === this.generation) this.cache.set(hash, entry);
    return entry;
  }

  /**
   * countDaily of a key without a daily quota: nothing to enforce, so counted in memory and added
   * in batches (requestsToday lags by DAILY_FLUSH_MS); false, nothing counted, for a key with one.
   */
  countDailyNow(principal: ApiKeyPrincipal): boolean {
    if (principal.policies.dailyQuota !== null) return false;
    const slot = `${principal.keyId}|${dayOf(Date.now())}`;
    this.uncounted.set(slot, (this.uncounted.get(slot) ?? 0) + 1);
    return true;
  }

  /**
   * authenticate, when it needs no waiting: the principal of an active key this instance has
   * cached, whose request is already counted against its developer's budget; undefined otherwise
   * (nothing done: authenticate then decides, a refusal included).
   */
  authenticateNow(creds: Credentials): ApiKeyPrincipal | undefined {
    const key = apiKeyOf(creds);
    if (key === undefined || !this.revocations.isListening || !API_KEY_PATTERN.test(key)) return undefined;
    const entry = this.cache.get(this.keyHash(creds, key));
    if (entry === undefined || 'invalid' in entry) return undefined;
    if (entry.validUntil !== undefined && entry.validUntil <= Date.now()) return undefined;
    if (!this.auth.requestCounted(entry.principal.developerId, creds)) return undefined;
    this.touched.add(entry.principal.keyId);
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

  /** Adds the requests counted in memory to requestsToday, in one statement. */
  async flushDaily(): Promise<void> {
    if (this.uncounted.size === 0) return;
    const slots = [...this.uncounted];
    this.uncounted.clear();
    await this.ds
      .query(
        `INSERT INTO api_key_daily_requests AS d (key_id, day, requests)
         SELECT s.key_id, s.day, s.n FROM unnest($1::uuid[], $2::date[], $3::int[]) AS s(key_id, day, n)
           WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = s.key_id)
         ON CONFLICT (key_id, day) DO UPDATE SET requests = d.requests + excluded.requests`,
        [slots.map(([slot]) => slot.split('|')[0]), slots.map(([slot]) => slot.split('|')[1]), slots.map(([, n]) => n)],
      )
      .catch((err: unknown) => this.logger.warn({ err }, "could not record API keys' requests of the day"));
  }

  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    clearInterval(this.dailyTimer);
    await this.flushDaily();
    await this.flushTouches();
  }
}

/** The columns of api_keys a key check reads. */
interface KeyRow {
  id: string;
  developer_id: string;
  scopes: ApiKeyScope[];
  contract_id: string | null;
  contract_ids: string[] | null;
  status: string;
  allowed_origins: string[] | null;
  allowed_ips: string[] | null;
  allowed_methods: string[] | null;
  expires_at: Date | null;
  rate_limit_per_second: number | null;
  daily_quota: number | null;
  spend_max_value_wei_per_tx: string | null;
  spend_max_value_wei_per_day: string | null;
  spend_max_fee_per_gas_wei: string | null;
  spend_max_gas_per_day: string | null;
  valid_until: Date | null;
}

/** The spend caps of a key's row; null when it has none. */
function spendCapsOf(row: KeyRow): SpendCaps | null {
  const cap = (v: string | null) => (v === null ? null : BigInt(v));
  const caps: SpendCaps = {
    maxValueWeiPerTx: cap(row.spend_max_value_wei_per_tx),
    maxValueWeiPerDay: cap(row.spend_max_value_wei_per_day),
    maxFeePerGasWei: cap(row.spend_max_fee_per_gas_wei),
    maxGasPerDay: cap(row.spend_max_gas_per_day),
  };
  return Object.values(caps).every((v) => v === null) ? null : caps;
}

/** The entity fields of a `spend` input. */
function spendColumnsOf(spend: SpendCapsInput | null) {
  const v = spendValues(spend);
  return {
    spendMaxValueWeiPerTx: v.maxValueWeiPerTx,
    spendMaxValueWeiPerDay: v.maxValueWeiPerDay,
    spendMaxFeePerGasWei: v.maxFeePerGasWei,
    spendMaxGasPerDay: v.maxGasPerDay,
  };
}

/** The principal of an active key, its address blocks parsed once for all its requests. */
function entryOf(row: KeyRow): CacheEntry {
  return {
    principal: {
      keyId: row.id,
      developerId: row.developer_id,
      scopes: row.scopes,
      contractIds: row.contract_ids ?? (row.contract_id ? [row.contract_id] : null),
      policies: {
        allowedOrigins: row.allowed_origins,
        allowedIps: row.allowed_ips?.map(parseIpRange) ?? null,
        allowedMethods: row.allowed_methods,
        expiresAt: row.expires_at,
        rateLimitPerSecond: row.rate_limit_per_second,
        dailyQuota: row.daily_quota,
        spend: spendCapsOf(row),
      },
    },
    ...(row.valid_until ? { validUntil: row.valid_until.getTime() } : {}),
  };
}

/** The policy fields of an input, as given (undefined: not given). */
function pickPolicies(input: UpdateApiKeyInput | CreateApiKeyInput): PolicyValues {
  return {
    contractIds: input.contractIds,
    allowedOrigins: input.allowedOrigins,
    allowedIps: input.allowedIps,
    allowedMethods: input.allowedMethods,
    expiresAt: input.expiresAt,
    rateLimitPerSecond: input.rateLimitPerSecond,
    dailyQuota: input.dailyQuota,
  };
}
