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

/** How each proof in the step-up answer is given. */
const REAUTH = 'to POST /api/auth/reauth';
const PROOF_WORDS: Record<string, string> = {
  password: `the password ${REAUTH}`,
  'password+code': `the password and a current code ${REAUTH}`,
  'password+recovery-code': `the password and a recovery code ${REAUTH}`,
  passkey: `a passkey ${REAUTH} (its options from POST /api/auth/reauth/options)`,
};
const describeProof = (proof: string) => {
  const provider = /^provider:([a-z0-9]+)(\+code)?$/.exec(proof);
  if (!provider) return PROOF_WORDS[proof] ?? proof;
  return `a fresh sign-in at ${provider[1]} (GET /api/auth/oidc/${provider[1]}/login?fresh=true)${provider[2] ? ', then a code' : ''}`;
};

/** RFC 9470 §3: the step-up challenge, naming the account's proofs in the envelope. */
export function stepUp(proofs: readonly string[], maxAgeSeconds: number): HttpError {
  const ways =
    proofs.length > 0 ? proofs.map(describeProof).join('; or ') : 'none is left: reset the password by email';
  const message = `A recent proof that the account is yours is needed (at most ${maxAgeSeconds} s old): ${ways} [proofs: ${proofs.join(', ')}]`;
  const challenge = `Bearer error="insufficient_user_authentication", error_description="A recent proof of the account's owner is needed", max_age=${maxAgeSeconds}`;
  return new HttpError(401, message, { headers: { 'WWW-Authenticate': challenge } });
}

const endedSession = (message: string) =>
  new HttpError(401, message, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });

/** Each refusal as the caller is told it. */
const REFUSALS: {
  [R in Refusal['refused']]: (refusal: Extract<Refusal, { refused: R }>, maxAgeSeconds: number) => HttpError;
} = {
  'step-up': (refusal, maxAgeSeconds) => stepUp(refusal.proofs, maxAgeSeconds),
  throttled: (refusal) => tooManyAttempts(refusal.retryAfterSeconds),
  'wrong-password': () => unauthorized('The password is wrong'),
  'wrong-code': () => unauthorized('Wrong, expired or already used code'),
  'session-ended': () => endedSession('This session has ended: log in again'),
  'user-gone': () => endedSession('This user no longer exists'),
};

export const refusalAnswer = (refusal: Refusal, maxAgeSeconds: number): HttpError =>
  (REFUSALS[refusal.refused] as (refusal: Refusal, maxAgeSeconds: number) => HttpError)(refusal, maxAgeSeconds);

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
      const body = (ctx.request as { body?: unknown }).body; // validated against the route's schema before this runs
      const outcome = await proofs.prove(claims, inline?.(body as never), attemptOrigin(ctx));
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
      429: {
        description: 'Too many wrong passwords or codes for this account',
        headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] },
      },
    },
  };
}
