import type { FactorAnswer, SecondFactor } from '../mfa/second-factor';
import type { AttemptOrigin, Counting, PasswordCheck } from '../password-check';
import type { UserRecord, UserStore } from '../stores/user-store';
import type { AccessClaims } from '../tokens';
import type { AccountMethodsReader } from './account-methods';
import { AMR, proofsOf, provenNow, recentlyProven, signsIn, type AccountMethods, type SessionProof } from './proofs';

/** What a request body may carry as a proof given there and then: the password, a code, a recovery code. */
export interface InlineProof {
  password?: string;
  code?: string;
  recoveryCode?: string;
}

/** The caller's session as stored now: refused when the user is gone or the session ended (on any replica). */
export type SessionCheck = { ok: true; user: UserRecord } | { ok: false; refused: 'user-gone' | 'session-ended' };

/** A proof given there and then that was wrong (counted by the login throttle), or could not be counted. */
export type ProofRefusal =
  | { ok: false; refused: 'wrong-password' | 'wrong-code' }
  | { ok: false; refused: 'throttled'; retryAfterSeconds: number };

/** The owner of the account, proven: who they are as stored now, what signs them in, and the proof that held. */
export interface ProvenOwner {
  user: UserRecord;
  account: AccountMethods;
  proof: SessionProof;
}

export type OwnerCheck =
  | ({ ok: true } & ProvenOwner)
  | Exclude<SessionCheck, { ok: true }>
  | ProofRefusal
  /** Neither the request nor the token's recent proof signs the account in: RFC 9470's step-up. */
  | { ok: false; refused: 'step-up'; proofs: string[] };

/**
 * One rule for every change to the ways into an account (add or remove a passkey, link or unlink a provider,
 * two-factor login on or off, new recovery codes, the password set or changed): the caller's session is read
 * from the store (never a replica's cache), then a proof that would sign the account in from scratch must be
 * recent (`signsIn`, REAUTH_MAX_AGE). A proof in the request itself (today's bodies: the password, a code)
 * counts where it is enough for the account; otherwise the access token's `auth_time` and `amr` decide.
 */
export class OwnerProofs {
  constructor(
    private readonly users: Pick<UserStore, 'findById'>,
    private readonly methods: AccountMethodsReader,
    private readonly passwords: PasswordCheck,
    private readonly factors: SecondFactor | undefined,
    private readonly counting: Counting,
    readonly maxAgeSeconds: number,
  ) {}

  /** The caller's user, when the token's session is the stored one. */
  async session(claims: Pick<AccessClaims, 'id' | 'sessionVersion'>): Promise<SessionCheck> {
    const user = await this.users.findById(claims.id);
    if (!user) return { ok: false, refused: 'user-gone' };
    return user.sessionVersion === claims.sessionVersion ? { ok: true, user } : { ok: false, refused: 'session-ended' };
  }

  /** Before a change to the ways in: the owner proven by the request's own proof, or by the token's recent one. */
  async prove(claims: AccessClaims, inline: InlineProof | undefined, origin: AttemptOrigin): Promise<OwnerCheck> {
    const owner = await this.owner(claims);
    if (!owner.ok) return owner;
    const given = inline && (await this.given(owner, inline, origin));
    if (given) return given;
    if (recentlyProven(claims.proof, owner.account, this.maxAgeSeconds)) return { ...owner, proof: claims.proof };
    return stepUp(owner.account);
  }

  /**
   * POST /api/auth/reauth with a password (and a code): the new proof, when it would sign the account in. Only
   * then is it checked (a wrong one refused and counted); one that is not enough (a password alone where a code
   * is due, a code alone) is a step-up, unchecked.
   */
  async reauth(claims: AccessClaims, answer: InlineProof, origin: AttemptOrigin): Promise<OwnerCheck> {
    const owner = await this.owner(claims);
    if (!owner.ok) return owner;
    return (await this.given(owner, answer, origin)) ?? stepUp(owner.account);
  }

  /** The caller's user and what signs them in, when the token's session is the stored one. */
  private async owner(
    claims: AccessClaims,
  ): Promise<({ ok: true } & Omit<ProvenOwner, 'proof'>) | Exclude<SessionCheck, { ok: true }>> {
    const session = await this.session(claims);
    return session.ok ? { ok: true, user: session.user, account: await this.methods.of(session.user) } : session;
  }

  /**
   * A proof given there and then, when it would sign the account in: checked (a wrong one refused and counted),
   * then the owner proven now. Undefined when it is not enough whatever it holds: nothing is checked, so a code
   * alone can neither be tried nor fill the user's count.
   */
  private async given(
    owner: Omit<ProvenOwner, 'proof'>,
    inline: InlineProof,
    origin: AttemptOrigin,
  ): Promise<OwnerCheck | undefined> {
    const { parts, amr } = counted(inline, owner.account);
    if (!signsIn(amr, owner.account)) return undefined;
    return (await this.check(owner.user, parts, origin)) ?? { ok: true, ...owner, proof: provenNow(...amr) };
  }

  /** Checks each part (the password first: a guess at it is counted before a code is looked at); undefined when all hold. */
  private async check(user: UserRecord, inline: InlineProof, origin: AttemptOrigin): Promise<ProofRefusal | undefined> {
    if (inline.password !== undefined) {
      const password = await this.passwords.check(user, inline.password, origin);
      if (!password.ok) return password;
    }
    const answer: FactorAnswer | undefined =
      inline.code !== undefined
        ? { code: inline.code }
        : inline.recoveryCode !== undefined
          ? { recoveryCode: inline.recoveryCode }
          : undefined;
    if (!answer) return undefined;
    if (!this.factors) return { ok: false, refused: 'wrong-code' };
    const factor = await this.factors.check(user.id, answer, this.counting);
    if (factor.ok) return undefined;
    return factor.refused === 'throttled' ? factor : { ok: false, refused: 'wrong-code' };
  }
}

const stepUp = (account: AccountMethods): OwnerCheck => ({ ok: false, refused: 'step-up', proofs: proofsOf(account) });

/** The parts of an inline proof that count for this account (a code only where two-factor login is on), and their methods. */
function counted(inline: InlineProof, account: AccountMethods): { parts: InlineProof; amr: string[] } {
  const parts: InlineProof = {};
  const amr: string[] = [];
  if (inline.password !== undefined && account.password) {
    parts.password = inline.password;
    amr.push(AMR.password);
  }
  if ((inline.code ?? inline.recoveryCode) !== undefined && account.secondFactor) {
    if (inline.code !== undefined) parts.code = inline.code;
    else parts.recoveryCode = inline.recoveryCode;
    amr.push(AMR.oneTimeCode);
  }
  return { parts, amr };
}
