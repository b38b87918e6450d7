import { PASSWORD_POLICY_REFUSAL, passwordRefusal } from '../../auth/password-policy';
import { unauthorized, unprocessable } from '../../http/errors';
import { FRAMEWORK_HEADERS } from '../../http/openapi/components';
import { route } from '../../http/routing/route';
import { callerPasswordIsRight, storedCaller } from './caller-password';
import { refreshCookie } from './cookie';
import type { AuthRouteDeps } from './routes';
import { passwordChangeSchema } from './schemas';

/**
 * POST /api/auth/password {currentPassword, newPassword}: the signed-in caller changes their password.
 * A wrong current password is a 401 counted by the login throttle (the same counters as login, so this
 * route is no side door for guessing). The new password follows the policy of registration. On success
 * every session of the user ends — a thief holding a refresh or access token is out — and the caller gets
 * a new refresh token in the cookie: 204.
 */
const REFRESHED_COOKIE_HEADER = {
  description: 'A new refresh token for the caller (every other session has ended)',
  schema: { type: 'string', pattern: '^refreshToken=[^;]+;' },
};

export function passwordChangeRoute(deps: AuthRouteDeps) {
  const { users, hasher, sessions, accounts, events, cookie } = deps;
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
      if (!(await callerPasswordIsRight(deps, ctx, user, currentPassword))) {
        events.record(ctx, { action: 'password-change', outcome: 'failure', userId: user.id });
        throw unauthorized('The current password is wrong');
      }
      const refusal = passwordRefusal(newPassword, { email: user.email, name: user.name, currentPassword });
      if (refusal) throw unprocessable([{ field: 'newPassword', message: refusal }]);

      // One statement sets the hash and ends every session (the caller's access token too: they refresh with
      // the new cookie); deleting the old refresh records after it is cleanup, not what ends them.
      const sessionVersion = await accounts.changePassword(user.id, await hasher.hash(newPassword));
      if (sessionVersion === undefined) throw unauthorized(); // deleted meanwhile
      const issued = await sessions.issue({ id: user.id, sessionVersion });
      ctx.append('Set-Cookie', refreshCookie(issued.token, cookie));
      events.record(ctx, { action: 'password-change', outcome: 'success', userId: user.id });
      return undefined; // 204
    },
  });
}
