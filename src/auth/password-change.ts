import type { AccountSessions } from './account-sessions';
import type { ProvenOwner } from './owner-proof/owner-proofs';
import { passwordRefusal } from './password-policy';
import type { PasswordHasher } from './passwords';
import type { IssuedRefreshToken } from './tokens';

export type PasswordChangeOutcome =
  | { ok: true; session: IssuedRefreshToken }
  | { ok: false; refused: 'user-gone' }
  | { ok: false; refused: 'policy'; message: string };

/**
 * The signed-in owner sets or changes their password (POST /api/auth/password), once proven (OwnerProofs: the
 * current password where it is enough, or a recent proof): the new one against the policy of registration;
 * then one statement sets the hash and ends every session (AccountSessions) — a thief holding a refresh or
 * access token is out — and the caller gets a new session (its refresh token), carrying the proof.
 */
export class PasswordChange {
  constructor(
    private readonly hasher: PasswordHasher,
    private readonly accounts: AccountSessions,
  ) {}

  async change(
    owner: ProvenOwner,
    newPassword: string,
    currentPassword: string | undefined,
  ): Promise<PasswordChangeOutcome> {
    const { user, proof } = owner;
    const refusal = passwordRefusal(newPassword, { email: user.email, name: user.name, currentPassword });
    if (refusal) return { ok: false, refused: 'policy', message: refusal };
    // Deleting the old refresh records after the statement is cleanup, not what ends them.
    const session = await this.accounts.changePassword(user, await this.hasher.hash(newPassword), proof);
    return session ? { ok: true, session } : { ok: false, refused: 'user-gone' }; // deleted, or its sessions ended meanwhile
  }
}
