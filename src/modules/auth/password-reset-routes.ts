import { Type } from '@sinclair/typebox';
import type { PasswordReset } from '../../auth/password-reset';
import { chosenPasswordSchema } from '../../auth/password-policy';
import { unprocessable } from '../../http/errors';
import { route } from '../../http/routing/route';
import type { Logger } from '../../logger';
import type { AuthEvents } from './auth-events';
import { emailSchema } from './schemas';

const ACCEPTED = 'If the address belongs to an account, a link to reset its password is on its way';

/**
 * POST /api/auth/forgot-password and /reset-password (with SMTP_URL). The first answers 202 with the same
 * body at once, before looking the address up: known and unknown addresses are indistinguishable, by answer
 * and by timing, and a mail outage changes neither.
 */
export function passwordResetRoutes(reset: PasswordReset, events: AuthEvents, logger: Logger, passwordMinLength: number) {
  return [
    route({
      method: 'POST',
      path: '/forgot-password',
      access: 'public',
      summary: 'Ask for a password-reset link by email (the same answer whether or not the address has an account)',
      body: Type.Object({ email: emailSchema }),
      responses: { 202: Type.Object({ message: Type.String() }) },
      handler: (ctx) => {
        const { email } = ctx.request.body;
        // After the answer: its content and timing must not depend on the lookup (or on the mail server).
        setImmediate(() => {
          reset.request(email).then(
            (sent) => events.record(ctx, { action: 'password-reset-request', outcome: sent ? 'success' : 'ignored', email }),
            (error: unknown) => logger.warn({ err: error, reqId: ctx.state.requestId }, 'password-reset request failed'),
          );
        });
        return { message: ACCEPTED };
      },
    }),
    route({
      method: 'POST',
      path: '/reset-password',
      access: 'public',
      summary: "Set a new password with the emailed link's token: ends every session of the account",
      body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), password: Type.Unsafe<string>(chosenPasswordSchema(passwordMinLength)) }),
      responses: { 204: null },
      errors: { 422: 'The token is invalid, expired or used already (`token`), or the password breaks the policy (`password`; the token still works)' },
      handler: async (ctx) => {
        const outcome = await reset.reset(ctx.request.body.token, ctx.request.body.password);
        if ('field' in outcome) {
          if (outcome.field === 'token') events.record(ctx, { action: 'password-reset', outcome: 'refused' });
          throw unprocessable([outcome]);
        }
        events.record(ctx, { action: 'password-reset', outcome: 'success', userId: outcome.userId });
        return undefined; // 204
      },
    }),
  ];
}
