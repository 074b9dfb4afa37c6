import jwt from 'jsonwebtoken';
import { AppError } from '../../errors/app-error';

/** Developer tokens live 12 hours (SPEC.md, Limits). */
export const ACCESS_TOKEN_TTL_SECONDS = 12 * 60 * 60;
/** The only algorithm accepted: pinned so that `alg: none` or a swapped algorithm is refused. */
const ALGORITHM = 'HS256';
const ISSUER = 'qbft-devportal';

export interface IssuedToken {
  accessToken: string;
  expiresAt: Date;
  expiresIn: number;
}

/** Issues and verifies developer JWTs (`sub` = developer id). */
export class AccessTokens {
  constructor(private readonly secret: string) {}

  issue(developerId: string, now = Date.now()): IssuedToken {
    const iat = Math.floor(now / 1000);
    const accessToken = jwt.sign({ iat, exp: iat + ACCESS_TOKEN_TTL_SECONDS }, this.secret, {
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

  /** Returns the developer id; any malformed, forged, foreign-algorithm or expired token is 401. */
  verify(token: string): string {
    try {
      const payload = jwt.verify(token, this.secret, { algorithms: [ALGORITHM], issuer: ISSUER });
      if (typeof payload === 'string' || typeof payload.sub !== 'string') throw new Error('no subject');
      return payload.sub;
    } catch (e) {
      const expired = e instanceof jwt.TokenExpiredError;
      throw new AppError(
        'UNAUTHENTICATED',
        expired ? 'The access token has expired; log in again' : 'The access token is invalid',
      );
    }
  }
}
