import { PASSWORD_POLICY_REFUSAL } from '../../auth/password-policy';
import type { PasswordChange } from '../../auth/password-change';
import type { UserStore } from '../../auth/stores/user-store';
import { unauthorized, unprocessable } from '../../http/errors';
import { FRAMEWORK_HEADERS } from '../../http/openapi/components';
import { route } from '../../http/routing/route';
import type { AuthEvents } from './auth-events';
import { attemptOrigin, storedCaller, tooManyAttempts } from './caller-password';
import { refreshCookie, type CookiePolicy } from './cookie';
import { passwordChangeSchema } from './schemas';

export interface PasswordRouteDeps {
  users: Pick<UserStore, 'findById'>;
  passwordChange: PasswordChange;
  events: AuthEvents;
  cookie: CookiePolicy;
  passwordMinLength: number;
}

const REFRESHED_COOKIE_HEADER = {
  description: 'A new refresh token for the caller (every other session has ended)',
  schema: { type: 'string', pattern: '^refreshToken=[^;]+;' },
};

/**
 * POST /api/auth/password {currentPassword, newPassword}: the HTTP side of PasswordChange (src/auth/password-change.ts):
 * a wrong current password is a 401 (counted by the login throttle), a new one against the policy a 422; on
 * success every session ends and the caller gets a new refresh cookie: 204.
 */
export function passwordChangeRoute(deps: PasswordRouteDeps) {
  const { users, passwordChange, events, cookie } = deps;
  return route({
    method: 'POST',
    path: '/password',
    access: 'authenticated',
    summary: 'Change the password: ends every session of the user and sets a new refresh cookie for the caller',
    body: passwordChangeSchema(deps.passwordMinLength),
    responses: { 204: null },
    responseHeaders: { 'Set-Cookie': REFRESHED_COOKIE_HEADER },
    errors: {
      401: 'The current password is wrong (counted by the login throttle)',
      422: PASSWORD_POLICY_REFUSAL,
      429: { description: 'Too many failed attempts for this account', headers: { 'Retry-After': FRAMEWORK_HEADERS['Retry-After'] } },
    },
    handler: async (ctx) => {
      const { currentPassword, newPassword } = ctx.request.body;
      const user = await storedCaller(users, ctx);
      const outcome = await passwordChange.change(user, currentPassword, newPassword, attemptOrigin(ctx));
      if (!outcome.ok) {
        switch (outcome.refused) {
          case 'throttled':
            throw tooManyAttempts(outcome.retryAfterSeconds);
          case 'wrong-password':
            events.record(ctx, { action: 'password-change', outcome: 'failure', userId: user.id });
            throw unauthorized('The current password is wrong');
          case 'policy':
            throw unprocessable([{ field: 'newPassword', message: outcome.message }]);
          case 'user-gone':
            throw unauthorized();
        }
      }
      ctx.append('Set-Cookie', refreshCookie(outcome.session.token, cookie));
      events.record(ctx, { action: 'password-change', outcome: 'success', userId: user.id });
      return undefined; // 204
    },
  });
}
