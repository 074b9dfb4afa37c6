import type { DataSource } from 'typeorm';
import { AppError } from '../../errors/app-error';
import type { Credentials } from '../../server/context';
import type { RequestLimit } from '../../server/rate-limit';
import type { AccessTokens } from './access-token';
import { DeveloperEntity } from './developer.entity';

/** Checks developer tokens: every dev-jwt operation starts here. */
export class DeveloperAuth {
  constructor(
    private readonly ds: DataSource,
    private readonly tokens: AccessTokens,
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
   * Counts one authenticated request against the developer's budget over all keys and tokens,
   * unless the HTTP edge already charged this request to that developer.
   */
  async countRequest(developerId: string, creds: Credentials): Promise<void> {
    if (creds.chargedTo === developerId) return;
    await this.developerLimit?.consume(developerId);
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
}
