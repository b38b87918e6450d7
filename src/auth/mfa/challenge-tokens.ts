import { createSecretKey, hkdfSync, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { CLOCK_SKEW_SECONDS } from '../tokens';

/** Who passed the password step, and under which session version (a password reset meanwhile voids it). */
export interface Challenge {
  userId: string;
  sessionVersion: number;
}

const ALGORITHM = 'HS256';
const TYPE = 'mfa-challenge';

/**
 * The `mfaToken` of a login that needs its second factor: a JWT good for MFA_TOKEN_TTL and for nothing but
 * POST /api/auth/mfa/verify. Its key is derived from JWT_SECRET for this one purpose, and its audience and
 * type are its own, so it never passes as an access token (nor one as it). No code or secret is in it.
 */
export class ChallengeTokens {
  private readonly key: KeyObject;
  private readonly audience: string;

  constructor(
    accessSecret: string,
    private readonly issuer: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = createSecretKey(Buffer.from(hkdfSync('sha256', accessSecret, '', 'mfa-challenge-token/v1', 32)));
    this.audience = `${issuer}#mfa`;
  }

  sign(challenge: Challenge): string {
    return jwt.sign({ typ: TYPE, sv: challenge.sessionVersion }, this.key, {
      algorithm: ALGORITHM,
      issuer: this.issuer,
      audience: this.audience,
      subject: challenge.userId,
      jwtid: randomUUID(),
      expiresIn: this.ttlSeconds,
    });
  }

  /** The challenge of a valid token; undefined for anything else (bad, expired, another kind of token). */
  verify(token: string): Challenge | undefined {
    try {
      const claims = jwt.verify(token, this.key, { algorithms: [ALGORITHM], issuer: this.issuer, audience: this.audience });
      if (typeof claims === 'string' || claims.typ !== TYPE || typeof claims.sub !== 'string' || typeof claims.iat !== 'number') return undefined;
      if (Date.now() / 1000 - claims.iat > this.ttlSeconds + CLOCK_SKEW_SECONDS) return undefined;
      const version = claims.sv;
      if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) return undefined;
      return { userId: claims.sub, sessionVersion: version };
    } catch {
      return undefined;
    }
  }
}
