import type { FailureCounter } from '../failure-counter';
import type { Counting } from '../password-check';
import type { MfaStore } from '../stores/mfa-store';
import { newRecoveryCodes, recoveryCodeDigest } from './recovery-codes';
import type { SecretBox } from './secret-box';
import type * as Otplib from 'otplib';

/** What proves the second factor: a code from the authenticator, or one of the recovery codes. */
export type FactorAnswer = { code: string } | { recoveryCode: string };

/** A guess at a code refused before it was looked at: the user's count is full. */
export type Throttled = { ok: false; refused: 'throttled'; retryAfterSeconds: number };

export type FactorCheck =
  | { ok: true; via: 'code' | 'recovery-code' }
  | { ok: false; refused: 'wrong-code' | 'replayed-code' | 'not-enrolled' }
  | Throttled;

export type ConfirmCheck =
  { ok: true; recoveryCodes: string[] } | { ok: false; refused: 'no-enrolment' | 'wrong-code' } | Throttled;

/**
 * A code is accepted from the time step before to the one after now (RFC 6238 §5.2 allows a step of clock
 * drift and of typing); an older one is expired.
 */
const TOLERANCE_SECONDS = 30;

/**
 * TOTP two-factor login (RFC 6238, through otplib), opt-in per user: enrol (a new secret, shown once, sealed
 * before it is stored), confirm with a first code (then login needs one, and ten recovery codes are shown
 * once, stored as digests), check a code or a recovery code, disable. Every check is counted per user before
 * it runs, like a password (FailureCounter: the limit of LOGIN_THROTTLE_FAILURES per LOGIN_THROTTLE_WINDOW);
 * a code's time step is recorded when it is accepted, and a step used once never works again.
 */
export class SecondFactor {
  // otplib (and its hashing and base32 packages) load with the first use: a service without MFA never loads them.
  private otplib: typeof Otplib | undefined;

  constructor(
    private readonly store: MfaStore,
    private readonly box: SecretBox,
    private readonly counter: FailureCounter,
    private readonly limits: { failures: number; windowMs: number },
    private readonly issuer: string,
  ) {}

  private otp(): typeof Otplib {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    this.otplib ??= require('otplib') as typeof Otplib;
    return this.otplib;
  }

  /** True when login asks this user for a second factor. */
  async enrolled(userId: string): Promise<boolean> {
    return (await this.store.find(userId))?.confirmed === true;
  }

  async status(userId: string): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
    const enabled = await this.enrolled(userId);
    return { enabled, recoveryCodesLeft: enabled ? await this.store.recoveryCodesLeft(userId) : 0 };
  }

  /** A new secret for the user's authenticator (replacing an unconfirmed one), or undefined when one is confirmed already. */
  async enrol(user: { id: string; email: string }): Promise<{ secret: string; otpauthUrl: string } | undefined> {
    const otp = this.otp();
    const secret = otp.generateSecret(); // 160 bits, base32: what authenticator apps take
    if (!(await this.store.begin(user.id, this.box.seal(secret, user.id)))) return undefined;
    return { secret, otpauthUrl: otp.generateURI({ issuer: this.issuer, label: user.email, secret }) };
  }

  /**
   * Confirms the pending enrolment with a code from it: the recovery codes (shown once), or why not. Counted
   * like `check`: a token thief guessing at an enrolment its owner left pending has the same few tries.
   */
  confirm(userId: string, code: string, counting: Counting = (work) => work): Promise<ConfirmCheck> {
    return this.counted(
      userId,
      counting,
      (outcome) => !outcome.ok && outcome.refused === 'no-enrolment',
      async (): Promise<ConfirmCheck> => {
        const record = await this.store.find(userId);
        if (!record || record.confirmed) return { ok: false, refused: 'no-enrolment' };
        const step = await this.stepOf(this.box.open(record.secret, userId), code);
        if (step === undefined) return { ok: false, refused: 'wrong-code' };
        const codes = newRecoveryCodes();
        const confirmed = await this.store.confirm(userId, record.secret, step, codes.map(recoveryCodeDigest));
        return confirmed ? { ok: true, recoveryCodes: codes } : { ok: false, refused: 'no-enrolment' }; // a newer enrolment replaced this one meanwhile
      },
    );
  }

  /**
   * Checks a second factor, counted per user before it runs (and given back when it is right). `counting`
   * wraps each call to the counters (the routes turn their outage into a 503, as for the login throttle).
   */
  check(userId: string, answer: FactorAnswer, counting: Counting = (work) => work): Promise<FactorCheck> {
    // A code accepted before (this step, a double submit) is no guess: it gives back its count.
    return this.counted(
      userId,
      counting,
      (outcome) => !outcome.ok && outcome.refused === 'replayed-code',
      () => this.verify(userId, answer),
    );
  }

  /** A guess, counted per user before it runs; a right one clears the count, one that was no guess (`noGuess`) gives it back. */
  private async counted<Outcome extends { ok: boolean }>(
    userId: string,
    counting: Counting,
    noGuess: (outcome: Outcome) => boolean,
    guess: () => Promise<Outcome>,
  ): Promise<Outcome | Throttled> {
    const key = `mfa-throttle:${userId}`;
    const blockedMs = await counting(
      this.counter.reserve([{ key, limit: this.limits.failures }], this.limits.windowMs),
    );
    if (blockedMs > 0) return { ok: false, refused: 'throttled', retryAfterSeconds: Math.ceil(blockedMs / 1000) };
    let outcome: Outcome;
    try {
      outcome = await guess();
    } catch (error) {
      await this.counter.release([], [key]).catch(() => undefined); // a store outage is no wrong guess
      throw error;
    }
    if (outcome.ok) await counting(this.counter.release([key], []));
    else if (noGuess(outcome)) await counting(this.counter.release([], [key]));
    return outcome;
  }

  /** New recovery codes (shown once), the old ones void; undefined when two-factor login is not on. */
  async newRecoveryCodes(userId: string): Promise<string[] | undefined> {
    const codes = newRecoveryCodes();
    return (await this.store.replaceRecoveryCodes(userId, codes.map(recoveryCodeDigest))) ? codes : undefined;
  }

  /** The user's credential and recovery codes go; false when there was none. */
  disable(userId: string): Promise<boolean> {
    return this.store.remove(userId);
  }

  private async verify(userId: string, answer: FactorAnswer): Promise<FactorCheck> {
    const record = await this.store.find(userId);
    if (!record?.confirmed) return { ok: false, refused: 'not-enrolled' };
    if ('recoveryCode' in answer) {
      const used = await this.store.useRecoveryCode(userId, recoveryCodeDigest(answer.recoveryCode));
      return used ? { ok: true, via: 'recovery-code' } : { ok: false, refused: 'wrong-code' };
    }
    const secret = this.box.open(record.secret, userId);
    const step = await this.stepOf(secret, answer.code);
    if (step === undefined) return { ok: false, refused: 'wrong-code' };
    // The store accepts only a step later than every one before (one conditional update): a replay, even one
    // racing its first use, is refused there.
    if (!(await this.store.useStep(userId, step))) return { ok: false, refused: 'replayed-code' };
    if (this.box.isStale(record.secret)) await this.store.reseal(userId, record.secret, this.box.seal(secret, userId));
    return { ok: true, via: 'code' };
  }

  /** The time step of a right code within the tolerance; undefined for a wrong or expired one. */
  private async stepOf(secret: string, code: string): Promise<number | undefined> {
    const result = await this.otp().verify({ secret, token: code, epochTolerance: TOLERANCE_SECONDS });
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  }
}
