import { AppError } from '../kernel/errors/app-error';
import type { Credentials } from './credentials';

/** Who a long-lived operation runs as: an API key (by its hash), or a developer token (developer and generation). */
export type CredentialIdentity = { apiKeyHash: string } | { developerId: string; generation: number };

type Ender = (err: AppError) => void;

interface Watcher {
  generation: number;
  end: Ender;
}

/**
 * The open operations (subscriptions) of each credential on this instance, so that a key
 * revocation or a logout heard from any instance ends them at once (docs/api.md, "Subscriptions
 * and revocation"). `identify` names the credential an operation presented; operations whose
 * credential names nobody (anonymous, malformed) are not watched: they hold nothing to revoke.
 */
export class LiveCredentials {
  private readonly watchers = new Map<string, Set<Watcher>>();

  constructor(private readonly identify: (creds: Credentials) => CredentialIdentity | undefined) {}

  /** Calls `end` (once) when the credential is revoked; returns what stops watching. */
  watch(creds: Credentials, end: Ender): () => void {
    const identity = this.identify(creds);
    if (!identity) return () => undefined;
    const key = 'apiKeyHash' in identity ? `key:${identity.apiKeyHash}` : `developer:${identity.developerId}`;
    const generation = 'apiKeyHash' in identity ? 0 : identity.generation;
    let ended = false;
    const watcher: Watcher = {
      generation,
      end: (err) => {
        if (ended) return;
        ended = true;
        end(err);
      },
    };
    const set = this.watchers.get(key) ?? new Set<Watcher>();
    set.add(watcher);
    this.watchers.set(key, set);
    return () => {
      set.delete(watcher);
      if (set.size === 0 && this.watchers.get(key) === set) this.watchers.delete(key);
    };
  }

  /** How many operations are watched (for tests and metrics). */
  get size(): number {
    let n = 0;
    for (const set of this.watchers.values()) n += set.size;
    return n;
  }

  /** An API key was revoked: its operations end with INVALID_API_KEY. */
  keyRevoked(apiKeyHash: string): void {
    this.endAll(
      `key:${apiKeyHash}`,
      () => true,
      () => new AppError('INVALID_API_KEY', 'The API key was revoked'),
    );
  }

  /** A developer logged out: operations of their tokens older than `generation` end with UNAUTHENTICATED. */
  loggedOut(developerId: string, generation: number): void {
    this.endAll(
      `developer:${developerId}`,
      (w) => w.generation < generation,
      () => new AppError('UNAUTHENTICATED', 'The access token was revoked by a logout; log in again'),
    );
  }

  /**
   * Revocations may have been missed (the instance's revocation channel was lost): every watched
   * operation ends with SERVICE_UNAVAILABLE, to be subscribed again (its credential is then checked anew).
   */
  revocationsMissed(): void {
    for (const key of [...this.watchers.keys()]) {
      this.endAll(
        key,
        () => true,
        () =>
          new AppError(
            'SERVICE_UNAVAILABLE',
            'Credential revocations could not be heard for a moment; subscribe again (with fromBlock to resume)',
          ),
      );
    }
  }

  private endAll(key: string, applies: (w: Watcher) => boolean, error: () => AppError): void {
    const set = this.watchers.get(key);
    if (!set) return;
    for (const watcher of [...set]) {
      if (!applies(watcher)) continue;
      set.delete(watcher);
      watcher.end(error());
    }
    if (set.size === 0) this.watchers.delete(key);
  }
}

/** What a logout announces on the revocation channel: `logout:<developer id>:<new generation>`. */
export const logoutNotice = (developerId: string, generation: number): string => `logout:${developerId}:${generation}`;

/** The developer and generation of a logout notice, or undefined for any other payload (a key hash). */
export function parseLogoutNotice(payload: string): { developerId: string; generation: number } | undefined {
  const match = /^logout:([^:\s]+):(\d+)$/.exec(payload);
  if (!match) return undefined;
  const generation = Number(match[2]);
  return Number.isSafeInteger(generation) ? { developerId: match[1]!, generation } : undefined;
}
