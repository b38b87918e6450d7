import { PASSWORD_POLICY_REFUSAL } from '../../auth/password-policy';
import type { PasswordChange } from '../../auth/password-change';
import { unauthorized, unprocessable } from '../../http/errors';
import { route } from '../../http/routing/route';
import type { AuthEvents } from './auth-events';
import { refreshCookie, type CookiePolicy } from './cookie';
import { provenOwner, type OwnerGate } from './owner-gate';
import { passwordChangeSchema } from './schemas';
import { NEW_SESSION_COOKIE_HEADER } from './sign-in';

export interface PasswordRouteDeps {
  passwordChange: PasswordChange;
  events: AuthEvents;
  cookie: CookiePolicy;
  passwordMinLength: number;
  gate: OwnerGate;
}

/**
 * POST /api/auth/password {currentPassword?, newPassword}: the HTTP side of PasswordChange (src/auth/password-change.ts).
 * A change to the ways in: the current password counts as the owner's proof where it signs the account in (no
 * second factor), else a recent one (OwnerGate); a new password against the policy is a 422; on success every
 * session ends and the caller gets a new refresh cookie: 204.
 */
export function passwordChangeRoute(deps: PasswordRouteDeps) {
  const { passwordChange, events, cookie, gate } = deps;
  const body = passwordChangeSchema(deps.passwordMinLength);
  return route({
    method: 'POST',
    path: '/password',
    access: 'authenticated',
    summary:
      'Set or change the password, with a recent proof of the owner: ends every session of the user and sets a new refresh cookie for the caller',
    description:
      'A change to the ways in: `currentPassword` is the proof where it signs the account in; with two-factor login on, or for an account without a ' +
      'password (made by a provider or a passkey), a recent proof is needed (POST /api/auth/reauth).',
    body,
    responses: { 204: null },
    responseHeaders: { 'Set-Cookie': NEW_SESSION_COOKIE_HEADER },
    errors: { ...gate.errors, 422: PASSWORD_POLICY_REFUSAL },
    before: [gate.proven((proof: { currentPassword?: string }) => ({ password: proof.currentPassword }))],
    handler: async (ctx) => {
      const owner = provenOwner(ctx);
      const { currentPassword, newPassword } = ctx.request.body;
      const outcome = await passwordChange.change(owner, newPassword, currentPassword);
      if (!outcome.ok) {
        if (outcome.refused === 'user-gone') throw unauthorized();
        throw unprocessable([{ field: 'newPassword', message: outcome.message }]);
      }
      ctx.append('Set-Cookie', refreshCookie(outcome.session.token, cookie));
      events.record(ctx, { action: 'password-change', outcome: 'success', userId: owner.user.id });
      return undefined; // 204
    },
  });
}
