import jwt from 'jsonwebtoken';
import { AppError } from '../kernel/errors/app-error';

/** Developer tokens live 12 hours (docs/api.md, "Conventions"). */
export const ACCESS_TOKEN_TTL_SECONDS = 12 * 60 * 60;
/** The only algorithm accepted: pinned so that `alg: none` or a swapped algorithm is refused. */
const ALGORITHM = 'HS256';
const ISSUER = 'qbft-devportal';

export interface IssuedToken {
  accessToken: string;
  expiresAt: Date;
  expiresIn: number;
}

/** What a verified token says: whose it is and the token generation it was issued in. */
export interface TokenClaims {
  developerId: string;
  /** Logout moves a developer's generation on; tokens of earlier generations are refused. */
  generation: number;
}

/** Issues and verifies developer JWTs (`sub` = developer id, `gen` = token generation). */
export class AccessTokens {
  constructor(private readonly secret: string) {}

  issue(developerId: string, generation: number, now = Date.now()): IssuedToken {
    const iat = Math.floor(now / 1000);
    const accessToken = jwt.sign({ iat, exp: iat + ACCESS_TOKEN_TTL_SECONDS, gen: generation }, this.secret, {
      algorithm: ALGORITHM,
      subject: developerId,
      issuer: ISSUER,
    });
    return {
      accessToken,
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      expiresAt: new Date((iat + ACCESS_TOKEN_TTL_SECONDS) * 1000),
    };
  }

  /**
   * The token's claims; any malformed, forged, foreign-algorithm or expired token is 401, and so
   * is one without `exp` or `iat` (jsonwebtoken alone accepts a token that never expires).
   */
  verify(token: string): TokenClaims {
    try {
      const payload = jwt.verify(token, this.secret, { algorithms: [ALGORITHM], issuer: ISSUER });
      if (typeof payload === 'string' || typeof payload.sub !== 'string') throw new Error('no subject');
      if (!Number.isSafeInteger(payload.exp) || !Number.isSafeInteger(payload.iat)) throw new Error('no lifetime');
      const gen: unknown = payload.gen ?? 0; // tokens from before logout existed carry none
      if (!Number.isSafeInteger(gen)) throw new Error('bad generation');
      return { developerId: payload.sub, generation: gen as number };
    } catch (e) {
      const expired = e instanceof jwt.TokenExpiredError;
      throw new AppError(
        'UNAUTHENTICATED',
        expired ? 'The access token has expired; log in again' : 'The access token is invalid',
      );
    }
  }
}
