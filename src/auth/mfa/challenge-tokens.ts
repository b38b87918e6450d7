import { createSecretKey, hkdfSync, randomUUID, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { NO_PROOF, type SessionProof } from '../owner-proof/proofs';
import { CLOCK_SKEW_SECONDS, JWT_ALGORITHM, verifiedClaims, type ExpectedToken } from '../tokens';

/**
 * Who passed the first step (a password, a provider), under which session version (a password reset meanwhile
 * voids it), and that step's proof, which the second step completes.
 */
export interface Challenge {
  userId: string;
  sessionVersion: number;
  firstFactor: SessionProof;
}

/** A verified challenge token: its challenge, its id (`jti`, what spends it) and when it expires. */
export interface VerifiedChallenge extends Challenge {
  id: string;
  expiresAt: Date;
}

const TYPE = 'mfa-challenge';

/**
 * The `mfaToken` of a login that needs its second factor: a JWT good for MFA_TOKEN_TTL and for nothing but
 * POST /api/auth/mfa/verify. Its key is derived from JWT_SECRET for this one purpose, and its audience and
 * type are its own, so it never passes as an access token (nor one as it). No code or secret is in it.
 */
export class ChallengeTokens {
  private readonly key: KeyObject;
  private readonly audience: string;
  private readonly expected: ExpectedToken;

  constructor(
    accessSecret: string,
    private readonly issuer: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = createSecretKey(Buffer.from(hkdfSync('sha256', accessSecret, '', 'mfa-challenge-token/v1', 32)));
    this.audience = `${issuer}#mfa`;
    this.expected = {
      type: TYPE,
      issuer,
      audience: this.audience,
      maxLifetimeSeconds: ttlSeconds + CLOCK_SKEW_SECONDS,
    };
  }

  sign(challenge: Challenge): string {
    const { authTime, amr } = challenge.firstFactor;
    return jwt.sign({ typ: TYPE, sv: challenge.sessionVersion, auth_time: authTime, amr }, this.key, {
      algorithm: JWT_ALGORITHM,
      issuer: this.issuer,
      audience: this.audience,
      subject: challenge.userId,
      jwtid: randomUUID(),
      expiresIn: this.ttlSeconds,
    });
  }

  /** The challenge of a valid token; undefined for anything else (bad, expired, another kind of token). */
  verify(token: string): VerifiedChallenge | undefined {
    const claims = verifiedClaims(token, this.key, this.expected); // the same RFC 8725 checks as every token here
    const version = claims?.sv;
    if (!claims || typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) return undefined;
    if (typeof claims.jti !== 'string' || !claims.jti || typeof claims.exp !== 'number') return undefined; // every token signed here has both
    const { auth_time: authTime, amr } = claims as { auth_time?: unknown; amr?: unknown };
    const signed =
      typeof authTime === 'number' && Array.isArray(amr) && amr.every((method) => typeof method === 'string');
    const firstFactor = signed ? { authTime, amr: amr as string[] } : NO_PROOF; // signed here, so always both
    return {
      userId: claims.sub as string,
      sessionVersion: version,
      firstFactor,
      id: claims.jti,
      expiresAt: new Date(claims.exp * 1000),
    };
  }
}
