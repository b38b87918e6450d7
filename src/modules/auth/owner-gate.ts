import type { Context, Middleware } from 'koa';
import type { InlineProof, OwnerCheck, OwnerProofs, ProvenOwner } from '../../auth/owner-proof/owner-proofs';
import type { UserRecord } from '../../auth/stores/user-store';
import { HttpError, unauthorized } from '../../http/errors';
import { FRAMEWORK_HEADERS } from '../../http/openapi/components';
import type { ErrorResponses, RequestState } from '../../http/routing/route';
import type { AuthEvents } from './auth-events';
import { attemptOrigin, tooManyAttempts } from './caller-password';

// The HTTP side of OwnerProofs (src/auth/owner-proof/owner-proofs.ts): every route that changes a way into an
// account runs `proven` before its handler, and the second step of such a change (a passkey's verify, two-
// factor login's confirm) runs `current`. Nothing else decides who may change the ways in.

type Refusal = Exclude<OwnerCheck, { ok: true }>;

/** The proof each name in the step-up answer stands for, and where it is given. */
const PROOF_WORDS: Record<string, string> = {
  password: 'the password',
  'password+code': 'the password and a current code',
  'password+recovery-code': 'the password and a recovery code',
  passkey: 'a passkey (POST /api/auth/reauth/options, then its answer)',
};
const describeProof = (proof: string) => {
  const provider = /^provider:([a-z0-9]+)/.exec(proof)?.[1];
  if (provider) return `a fresh sign-in at ${provider} (GET /api/auth/oidc/${provider}/login?fresh=true)${proof.endsWith('+code') ? ' and a code' : ''}`;
  return PROOF_WORDS[proof] ?? proof;
};

/** RFC 9470 §3: the step-up challenge, naming the account's proofs in the envelope. */
export function stepUp(proofs: readonly string[], maxAgeSeconds: number): HttpError {
  const ways = proofs.map(describeProof).join('; or ');
  const message = `A recent proof that the account is yours is needed (at most ${maxAgeSeconds} s old): POST /api/auth/reauth with ${ways || 'a way to sign in'} [proofs: ${proofs.join(', ')}]`;
  const challenge = `Bearer error="insufficient_user_authentication", error_description="A recent proof of the account's owner is needed", max_age=${maxAgeSeconds}`;
  return new HttpError(401, message, { headers: { 'WWW-Authenticate': challenge } });
}

const endedSession = (message: string) => new HttpError(401, message, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });

/** Each refusal as the caller is told it. */
export function refusalAnswer(refusal: Refusal, maxAgeSeconds: number): HttpError {
  switch (refusal.refused) {
    case 'step-up':
      return stepUp(refusal.proofs, maxAgeSeconds);
    case 'throttled':
      return tooManyAttempts(refusal.retryAfterSeconds);
    case 'wrong-password':
      return unauthorized('The password is wrong');
    case 'wrong-code':
      return unauthorized('Wrong, expired or already used code');
    case 'session-ended':
      return endedSession('This session has ended: log in again');
    case 'user-gone':
      return endedSession('This user no longer exists');
  }
}

const owners = new WeakMap<object, ProvenOwner>();
const sessions = new WeakMap<object, UserRecord>();

/** The proven owner, for a handler behind `proven`. */
export function provenOwner(ctx: { state: RequestState }): ProvenOwner {
  const owner = owners.get(ctx.state);
  if (!owner) throw new Error('provenOwner: the route has no owner gate (OwnerGate.proven)');
  return owner;
}

/** The caller's user as stored now, for a handler behind `current` (or `proven`). */
export function currentUser(ctx: { state: RequestState }): UserRecord {
  const user = sessions.get(ctx.state) ?? owners.get(ctx.state)?.user;
  if (!user) throw new Error('currentUser: the route has no owner gate (OwnerGate.current)');
  return user;
}

export interface OwnerGate {
  /** Before a change to the ways in: the request's own proof (`inline`, from today's bodies) or the token's recent one. */
  proven<Body>(inline?: (body: Body) => InlineProof): Middleware;
  /** The second step of a change begun under a proof: the caller's session as stored (so logout-all binds on every replica). */
  current: Middleware;
  /** What these answer, for a route's `errors`. */
  errors: ErrorResponses;
  readonly maxAgeSeconds: number;
}

export function ownerGate(proofs: OwnerProofs, events: AuthEvents): OwnerGate {
  const { maxAgeSeconds } = proofs;
  const claimsOf = (ctx: Context) => {
    const claims = (ctx.state as RequestState).session;
    if (!claims) throw unauthorized(); // only behind the token check
    return claims;
  };
  const refuse = (ctx: Context, userId: string, refusal: Refusal) => {
    events.record(ctx, { action: 'owner-proof', outcome: 'refused', reason: refusal.refused, userId });
    return refusalAnswer(refusal, maxAgeSeconds);
  };
  return {
    maxAgeSeconds,
    proven: (inline) => async (ctx, next) => {
      const claims = claimsOf(ctx);
      const outcome = await proofs.prove(claims, inline?.((ctx.request as { body?: never }).body as never), attemptOrigin(ctx));
      if (!outcome.ok) throw refuse(ctx, claims.id, outcome);
      owners.set(ctx.state, outcome);
      return next();
    },
    current: async (ctx, next) => {
      const claims = claimsOf(ctx);
      const outcome = await proofs.session(claims);
      if (!outcome.ok) throw refuse(ctx, claims.id, outcome);
      sessions.set(ctx.state, outcome.user);
      return next();
    },
    errors: {
      401: {
        description:
          `No recent proof of the account's owner that would sign it in (RFC 9470: \`WWW-Authenticate: Bearer error="insufficient_user_authentication", max_age=…\`, ` +
          'the message naming the proofs the account can give: POST /api/auth/reauth); a proof in the body that is wrong (counted by the login throttle); ' +
          'or the session ended (on any replica)',
      },
      429: { description: 'Too many wrong passwords or codes for this account', headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] } },
    },
  };
}
