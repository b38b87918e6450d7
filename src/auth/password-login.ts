import type { CredentialVerifier } from './credentials';
import type { LoginThrottle } from './login-throttle';
import type { TwoFactorLogin } from './mfa/two-factor-login';
import { AMR, provenNow, type SessionProof } from './owner-proof/proofs';
import type { AttemptOrigin, Counting } from './password-check';
import type { UserRecord } from './stores/user-store';

export type LoginOutcome =
  | { outcome: 'signed-in'; user: UserRecord; trustedDevice: boolean; proof: SessionProof }
  | { outcome: 'mfa-required'; userId: string; mfaToken: string }
  | { outcome: 'throttled'; retryAfterSeconds: number }
  | { outcome: 'failure'; userId?: string }
  | { outcome: 'unverified'; userId: string };

/**
 * The password step of a login (POST /api/auth/login), in this order: the attempt is counted by the login
 * throttle before the password is checked (parallel guesses cannot all pass; a throttled guess costs no
 * argon2 work and learns nothing); then the password (unknown address and wrong password alike); then, the
 * password being right, whether the address must be verified first (EMAIL_VERIFICATION=required) and whether
 * a second factor comes next (its mfaToken). Only then is it `signed-in`: the caller issues the session.
 */
export class PasswordLogin {
  constructor(
    private readonly credentials: CredentialVerifier,
    private readonly throttle: LoginThrottle,
    private readonly counting: Counting,
    private readonly options: { verificationRequired: boolean; twoFactor: TwoFactorLogin | undefined },
  ) {}

  async login(email: string, password: string, origin: AttemptOrigin): Promise<LoginOutcome> {
    const attempt = await this.counting(this.throttle.begin(email, origin.client, origin.deviceToken));
    if (!attempt.allowed) return { outcome: 'throttled', retryAfterSeconds: attempt.retryAfterSeconds };
    const check = await this.throttle.checking(attempt, () => this.credentials.verify(email, password));
    if (!check.ok) return { outcome: 'failure', userId: check.userId };
    const { user } = check;
    await this.counting(this.throttle.succeeded(attempt));
    // The password was right (so what follows tells a guesser nothing).
    if (this.options.verificationRequired && !user.emailVerified) return { outcome: 'unverified', userId: user.id };
    const proof = provenNow(AMR.password);
    const mfaToken = await this.options.twoFactor?.challenge(user, proof);
    if (mfaToken) return { outcome: 'mfa-required', userId: user.id, mfaToken };
    return { outcome: 'signed-in', user, trustedDevice: attempt.trustedDevice, proof };
  }
}
