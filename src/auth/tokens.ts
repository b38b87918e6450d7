import { createSecretKey, hash, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import jwt, { type JwtPayload } from 'jsonwebtoken';
import type { Config } from '../config/config';
import { NO_PROOF, type SessionProof } from './owner-proof/proofs';
import { VerifiedTokens } from './verified-tokens';

/** The caller as the token check leaves it on ctx.state.user. */
export interface AuthUser {
  id: string;
  role: string;
}

/** What an access token says of its user: the caller, and the session version it was issued under. */
export interface AccessClaims extends AuthUser {
  /** The user's session version at issue (claim `sv`); a token issued before versions existed reads 0. */
  sessionVersion: number;
  /** How and when the session's owner last proved it (claims `auth_time`, `amr`): refreshing never moves it. */
  proof: SessionProof;
}

/** What a refresh token says: its user, session version, and the session's proof. */
export interface RefreshClaims {
  userId: string;
  sessionVersion: number;
  proof: SessionProof;
}

export interface IssuedRefreshToken {
  token: string;
  expiresAt: Date;
}

// HS256 only, on both sides: verification pins the algorithm (RFC 8725 §3.1), so `none`, HS384/HS512
// and any asymmetric algorithm are refused whatever the token's header claims.
export const JWT_ALGORITHM = 'HS256';
/** JOSE header `typ` of access tokens (RFC 9068 §2.1), checked on verification (RFC 8725 §3.11). */
const ACCESS_HEADER_TYPE = 'at+jwt';
/** How far a token's `iat` may lie in the future: clocks of replicas drift a little, never by minutes. */
export const CLOCK_SKEW_SECONDS = 30;

/**
 * Signs and verifies both kinds of token. Secrets are KeyObjects: jsonwebtoken given a string first tries
 * to parse it as a PEM public key, which costs about a millisecond per call; a KeyObject skips that.
 */
export class TokenService {
  private readonly accessKey: KeyObject;
  private readonly refreshKey: KeyObject;
  private readonly expectedAccess: ExpectedToken;
  private readonly expectedRefresh: ExpectedToken;
  private readonly verifiedAccess = new VerifiedTokens<AccessClaims>();
  private readonly verifiedRefresh = new VerifiedTokens<RefreshClaims>();

  constructor(private readonly settings: Config['jwt']) {
    this.accessKey = createSecretKey(Buffer.from(settings.accessSecret));
    this.refreshKey = createSecretKey(Buffer.from(settings.refreshSecret));
    // The longest each may live: what this service issues, plus the clock skew. Refresh tokens are
    // addressed to the issuer: only this service reads them.
    const { issuer, audience } = settings;
    this.expectedAccess = {
      type: 'access',
      headerType: ACCESS_HEADER_TYPE,
      issuer,
      audience,
      maxLifetimeSeconds: settings.accessTtlSeconds + CLOCK_SKEW_SECONDS,
    };
    this.expectedRefresh = {
      type: 'refresh',
      issuer,
      audience: issuer,
      maxLifetimeSeconds: settings.refreshTtlSeconds + CLOCK_SKEW_SECONDS,
    };
  }

  get accessTtlSeconds(): number {
    return this.settings.accessTtlSeconds;
  }

  /** An access token; one issued without a proof (a tool's, a test's) proves no owner: `auth_time` 0. */
  signAccessToken(user: Omit<AccessClaims, 'proof'> & { proof?: SessionProof }): string {
    return jwt.sign(
      { role: user.role, sv: user.sessionVersion, typ: 'access', ...proofClaims(user.proof ?? NO_PROOF) },
      this.accessKey,
      {
        algorithm: JWT_ALGORITHM,
        header: { alg: JWT_ALGORITHM, typ: ACCESS_HEADER_TYPE },
        issuer: this.settings.issuer,
        audience: this.settings.audience,
        subject: user.id,
        jwtid: randomUUID(),
        expiresIn: this.settings.accessTtlSeconds,
      },
    );
  }

  /**
   * The claims of a valid access token; undefined for anything else (bad, expired, wrong type). The role
   * is what it was at issue: the guards authorise against the user's current state (caller-states.ts).
   */
  verifyAccessToken(token: string): AccessClaims | undefined {
    const known = this.verifiedAccess.get(token);
    if (known) return known;
    const claims = verifiedClaims(token, this.accessKey, this.expectedAccess);
    if (!claims || typeof claims.role !== 'string') return undefined;
    // Every token this service signs carries the session version; one without (or with anything but a count) is not ours.
    const version = claims.sv;
    if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) return undefined;
    const caller = { id: claims.sub as string, role: claims.role, sessionVersion: version, proof: proofOf(claims) };
    // Refused from `exp` on: verifiedClaims refused any token whose exp lies beyond iat + the longest lifetime.
    this.verifiedAccess.remember(token, caller, (claims.exp as number) * 1000);
    return caller;
  }

  /**
   * A new refresh token, valid for the refresh lifetime or, when given, until `expiresAt` (a rotated family's
   * end). It carries the user's session version (`sv`), like an access token: ending a user's sessions voids
   * it even before (or without) its record being deleted; and the session's proof, which every access token
   * it gives carries on.
   */
  signRefreshToken(
    session: RefreshClaims,
    expiresAt = new Date(Date.now() + this.settings.refreshTtlSeconds * 1000),
  ): IssuedRefreshToken {
    const { userId, sessionVersion, proof } = session;
    const token = jwt.sign({ typ: 'refresh', sv: sessionVersion, ...proofClaims(proof) }, this.refreshKey, {
      algorithm: JWT_ALGORITHM,
      issuer: this.settings.issuer,
      audience: this.settings.issuer, // only this service ever reads its refresh tokens
      subject: userId,
      jwtid: randomBytes(16).toString('base64url'), // 128 random bits: no two refresh tokens alike
      expiresIn: Math.max(1, Math.ceil((expiresAt.getTime() - Date.now()) / 1000)),
    });
    return { token, expiresAt };
  }

  /** The owner, session version and proof of a valid refresh token; undefined otherwise. The store must still be asked. */
  verifyRefreshToken(token: string): RefreshClaims | undefined {
    // Remembered by the token's digest, not its text: a heap dump then holds no usable refresh token, as the store
    // does not.
    const digest = hash('sha256', token, 'base64url');
    const known = this.verifiedRefresh.get(digest);
    if (known) return known;
    const claims = verifiedClaims(token, this.refreshKey, this.expectedRefresh);
    const version = claims?.sv;
    if (!claims || typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0) return undefined;
    const session = { userId: claims.sub as string, sessionVersion: version, proof: proofOf(claims) };
    this.verifiedRefresh.remember(digest, session, (claims.exp as number) * 1000);
    return session;
  }
}

/** RFC 9470 §3's claims: when the owner last proved it, and how. */
const proofClaims = (proof: SessionProof) => ({ auth_time: proof.authTime, amr: proof.amr });

/**
 * The proof a verified token states; none for a token without one (an older release's) or with anything but
 * a time not in the future and a short list of method names: such a token changes no way in until proven again.
 */
function proofOf(claims: JwtPayload): SessionProof {
  const { auth_time: authTime, amr } = claims as { auth_time?: unknown; amr?: unknown };
  if (
    typeof authTime !== 'number' ||
    !Number.isSafeInteger(authTime) ||
    authTime < 0 ||
    authTime > Date.now() / 1000 + CLOCK_SKEW_SECONDS
  )
    return NO_PROOF;
  if (
    !Array.isArray(amr) ||
    amr.length > 8 ||
    !amr.every((method) => typeof method === 'string' && method.length <= 16)
  )
    return NO_PROOF;
  return { authTime, amr: amr as string[] };
}

/** What a token must be, besides well signed: its type (claim `typ`, and the header's when given), issuer, audience, lifetime. */
export interface ExpectedToken {
  type: string;
  headerType?: string;
  issuer: string;
  audience: string;
  /** The longest lifetime this service issues for the type, plus the clock skew. */
  maxLifetimeSeconds: number;
}

/**
 * RFC 8725 checks on top of the signature, for every token this service reads: pinned algorithm, issuer and
 * audience, the token's own type (claim `typ`, and header `typ` where one is expected), a subject, a numeric
 * `exp` (jsonwebtoken accepts a token with none), an `iat` no further ahead than the clock skew, and a
 * lifetime no longer than this service issues: a token signed with a leaked key and `exp` ten years out is
 * still refused once its `iat` is older than the configured lifetime. The claims, or undefined.
 */
export function verifiedClaims(token: string, key: KeyObject, expected: ExpectedToken): JwtPayload | undefined {
  try {
    const { header, payload: claims } = jwt.verify(token, key, {
      algorithms: [JWT_ALGORITHM],
      issuer: expected.issuer,
      audience: expected.audience,
      complete: true,
    });
    if (typeof claims === 'string' || claims.typ !== expected.type || typeof claims.sub !== 'string' || !claims.sub)
      return undefined;
    if (expected.headerType !== undefined && header.typ !== expected.headerType) return undefined;
    if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') return undefined;
    const now = Date.now() / 1000;
    if (claims.iat > now + CLOCK_SKEW_SECONDS) return undefined;
    if (claims.exp - claims.iat > expected.maxLifetimeSeconds || now - claims.iat > expected.maxLifetimeSeconds)
      return undefined;
    return claims;
  } catch {
    return undefined; // every failure is the same to the caller: not a valid token of this type
  }
}
