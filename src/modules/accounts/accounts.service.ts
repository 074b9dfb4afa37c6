import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { AppError } from '../../kernel/errors/app-error';
import type { Logger } from '../../kernel/logger';
import { NetworkName } from '../../kernel/network-name';
import { ProjectService } from '../projects';
import { WalletService } from '../wallets';
import type { Session } from '../../auth/session';
import type { AccessTokens } from '../../auth/access-token';
import type {
  Developer,
  DeveloperDetails,
  EdsChallenge,
  EdsLoginInput,
  LoginResult,
  LogoutResult,
} from './accounts.types';
import { DeveloperEntity } from './developer.entity';
import { verifyEdsProof, type EdsIdentity, type EdsProof, type RevocationPolicy } from './eds/eds-verifier';
import type { TrustStore } from './eds/trust-store';
import { LoginChallengeEntity } from './login-challenge.entity';

/** A challenge must be answered within 5 minutes (docs/api.md, "Login by electronic digital signature"). */
const CHALLENGE_TTL_MS = 5 * 60 * 1000;

/** EDS login and developer profiles. */
export class AccountService {
  constructor(
    private readonly ds: DataSource,
    private readonly tokens: AccessTokens,
    private readonly trust: TrustStore,
    private readonly wallets: WalletService,
    private readonly projects: ProjectService,
    private readonly logger: Logger,
    private readonly revocation?: RevocationPolicy,
    /**
     * Told of each logout (the developer and the new token generation) before it answers: ends the
     * open subscriptions of the revoked tokens on every instance (docs/api.md, "Subscriptions and revocation").
     */
    private readonly onLogout?: (developerId: string, generation: number) => Promise<void>,
  ) {}

  /** The caller's own profile. */
  async me(session: Session): Promise<Developer> {
    return this.profile(await session.developer());
  }

  /** A developer's profile with wallets and projects; only the caller's own id. */
  async developer(session: Session, id: string): Promise<DeveloperDetails> {
    const caller = await session.self(id);
    return this.details(caller);
  }

  async createChallenge(): Promise<EdsChallenge> {
    const row = await this.ds.getRepository(LoginChallengeEntity).save({
      nonce: randomBytes(32).toString('base64url'),
      expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
      consumedAt: null,
    });
    // Old challenges are useless; trimming them here keeps the table small without a scheduler.
    void this.ds
      .query(`DELETE FROM login_challenges WHERE expires_at < now() - interval '1 day'`)
      .catch(() => undefined);
    return { challengeId: row.id, nonce: row.nonce, expiresAt: row.expiresAt };
  }

  async login(input: EdsLoginInput): Promise<LoginResult> {
    const proof = this.proofOf(input);
    const nonce = await this.consumeChallenge(input.challengeId);
    const identity = await verifyEdsProof(proof, nonce, this.trust, new Date(), this.revocation);
    const developer = await this.upsertDeveloper(identity);
    const token = this.tokens.issue(developer.id, developer.tokenGeneration);
    this.logger.info({ developerId: developer.id }, 'developer logged in');
    return { ...token, tokenType: 'Bearer', developer: await this.profile(developer) };
  }

  /** Revokes every token of the caller issued up to now, on every instance (the row is read per request). */
  async logout(session: Session): Promise<LogoutResult> {
    const caller = await session.developer();
    // TypeORM answers UPDATE ... RETURNING with [rows, affectedCount].
    const [rows]: [Array<{ revoked_before: Date; generation: number }>, number] = await this.ds.query(
      `UPDATE developers SET token_generation = token_generation + 1, tokens_revoked_before = now()
        WHERE id = $1 RETURNING tokens_revoked_before AS revoked_before, token_generation AS generation`,
      [caller.id],
    );
    await this.onLogout?.(caller.id, Number(rows[0]!.generation));
    this.logger.info({ developerId: caller.id }, 'developer logged out; earlier tokens revoked');
    return { revokedBefore: rows[0]!.revoked_before };
  }

  async profile(developer: DeveloperEntity): Promise<Developer> {
    const wallet = await this.wallets.walletOf(developer.id);
    return {
      id: developer.id,
      displayName: developer.displayName,
      subject: developer.subject,
      walletAddress: wallet.address,
      createdAt: developer.createdAt,
      lastLoginAt: developer.lastLoginAt,
    };
  }

  private async details(developer: DeveloperEntity): Promise<DeveloperDetails> {
    const profile = await this.profile(developer);
    return {
      ...profile,
      wallets: [{ address: profile.walletAddress, networks: [NetworkName.testnet, NetworkName.mainnet] }],
      projects: await this.projects.listOwnedBy(developer.id),
    };
  }

  private proofOf(input: EdsLoginInput): EdsProof {
    if (input.cms !== undefined && input.cms !== null) {
      if (input.certificate || input.signature) {
        throw new AppError('VALIDATION_FAILED', 'Send either cms, or certificate and signature, not both');
      }
      return { cms: input.cms };
    }
    if (!input.certificate || !input.signature) {
      throw new AppError('VALIDATION_FAILED', 'Send certificate and signature, or cms', {
        missing: [!input.certificate && 'certificate', !input.signature && 'signature'].filter(Boolean),
      });
    }
    return { certificate: input.certificate, signature: input.signature };
  }

  /** Marks the challenge used by this attempt, successful or not, and returns its nonce. */
  private async consumeChallenge(challengeId: string): Promise<string> {
    // TypeORM answers UPDATE ... RETURNING with [rows, affectedCount].
    const [rows]: [Array<{ nonce: string; expired: boolean }>, number] = await this.ds.query(
      `UPDATE login_challenges SET consumed_at = now()
        WHERE id = $1 AND consumed_at IS NULL
        RETURNING nonce, expires_at < now() AS expired`,
      [challengeId],
    );
    const row = rows[0];
    if (!row) throw new AppError('EDS_INVALID', 'The challenge is unknown or was already used');
    if (row.expired) throw new AppError('EDS_INVALID', 'The challenge has expired; request a new one');
    return row.nonce;
  }

  /**
   * First login creates the developer and its wallet, bound to the trust anchor it chained to.
   * Later logins must chain to the same anchor (a developer from before the binding is bound by
   * its next login); only they refresh the names from the certificate.
   */
  private async upsertDeveloper(identity: EdsIdentity): Promise<DeveloperEntity> {
    return this.ds.transaction(async (manager) => {
      const displayName = identity.commonName ?? identity.subject ?? 'Developer';
      const rows: Array<{ id: string; inserted: boolean }> = await manager.query(
        `INSERT INTO developers (identity_key, serial_number, display_name, subject, trust_anchor, last_login_at)
         VALUES ($1, $2, $3, $4, $5, now())
         ON CONFLICT (identity_key) DO UPDATE
           SET display_name = EXCLUDED.display_name, subject = EXCLUDED.subject,
               trust_anchor = EXCLUDED.trust_anchor, last_login_at = now()
           WHERE developers.trust_anchor IS NULL OR developers.trust_anchor = EXCLUDED.trust_anchor
         RETURNING id, (xmax = 0) AS inserted`,
        [identity.identityKey, identity.serialNumber, displayName, identity.subject, identity.trustAnchor],
      );
      const row = rows[0];
      if (!row) {
        this.logger.warn(
          { identityKey: identity.identityKey },
          'EDS login refused: the identity is bound to another trust anchor',
        );
        throw new AppError('EDS_INVALID', 'certificate identity is bound to another trust anchor');
      }
      if (row.inserted) await this.wallets.createFor(manager, row.id);
      return manager.getRepository(DeveloperEntity).findOneByOrFail({ id: row.id });
    });
  }
}
