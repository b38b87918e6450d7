import { createSecretKey, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import jwt, { type JwtPayload } from 'jsonwebtoken';
import type { Config } from '../config/config';

/** The caller as the token check leaves it on ctx.state.user. */
export interface AuthUser {
  id: string;
  role: string;
}

export interface IssuedRefreshToken {
  token: string;
  expiresAt: Date;
}

type TokenType = 'access' | 'refresh';

// HS256 only, on both sides: verification pins the algorithm (RFC 8725 §3.1), so `none`, HS384/HS512
// and any asymmetric algorithm are refused whatever the token's header claims.
const ALGORITHM = 'HS256';

/**
 * Signs and verifies both kinds of token. Secrets are KeyObjects: jsonwebtoken given a string first tries
 * to parse it as a PEM public key, which costs about a millisecond per call; a KeyObject skips that.
 */
export class TokenService {
  private readonly accessKey: KeyObject;
  private readonly refreshKey: KeyObject;

  constructor(private readonly settings: Config['jwt']) {
    this.accessKey = createSecretKey(Buffer.from(settings.accessSecret));
    this.refreshKey = createSecretKey(Buffer.from(settings.refreshSecret));
  }

  get accessTtlSeconds(): number {
    return this.settings.accessTtlSeconds;
  }

  signAccessToken(user: AuthUser): string {
    return jwt.sign({ role: user.role, typ: 'access' }, this.accessKey, {
      algorithm: ALGORITHM,
      subject: user.id,
      jwtid: randomUUID(),
      expiresIn: this.settings.accessTtlSeconds,
    });
  }

  /** The caller for a valid access token; undefined for anything else (bad, expired, wrong type). */
  verifyAccessToken(token: string): AuthUser | undefined {
    const claims = this.verify(token, this.accessKey, 'access');
    return claims && typeof claims.role === 'string' ? { id: claims.sub as string, role: claims.role } : undefined;
  }

  signRefreshToken(userId: string): IssuedRefreshToken {
    const expiresAt = new Date(Date.now() + this.settings.refreshTtlSeconds * 1000);
    const token = jwt.sign({ typ: 'refresh' }, this.refreshKey, {
      algorithm: ALGORITHM,
      subject: userId,
      jwtid: randomBytes(16).toString('base64url'), // 128 random bits: no two refresh tokens alike
      expiresIn: this.settings.refreshTtlSeconds,
    });
    return { token, expiresAt };
  }

  /** The owner's id for a valid refresh token; undefined otherwise. The store must still be asked. */
  verifyRefreshToken(token: string): string | undefined {
    return this.verify(token, this.refreshKey, 'refresh')?.sub;
  }

  private verify(token: string, key: KeyObject, type: TokenType): JwtPayload | undefined {
    try {
      const claims = jwt.verify(token, key, { algorithms: [ALGORITHM] });
      if (typeof claims === 'string' || claims.typ !== type || typeof claims.sub !== 'string' || !claims.sub) return undefined;
      return claims;
    } catch {
      return undefined; // every failure is the same to the caller: not a valid token of this type
    }
  }
}
