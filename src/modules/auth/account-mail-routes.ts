import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import type { EmailVerification } from '../../auth/email-verification';
import type { PasswordReset } from '../../auth/password-reset';
import { chosenPasswordSchema } from '../../auth/password-policy';
import { unprocessable } from '../../http/errors';
import { route } from '../../http/routing/route';
import type { Logger } from '../../logger';
import type { AuthEvents } from './auth-events';
import { emailSchema } from './schemas';

const ACCEPTED = 'If the address belongs to an account, a link to reset its password is on its way';
const RESEND_ACCEPTED = 'If the address belongs to an unverified account, a new link is on its way';
const INVALID_TOKEN = { field: 'token', message: 'is invalid, expired or used already' };

/**
 * The routes of account mail (with SMTP_URL, docs/accounts.md): forgot/reset password, and with
 * EMAIL_VERIFICATION verify/resend. A route that takes an address answers 202 with the same body at once,
 * before looking it up: known and unknown addresses are indistinguishable, by answer and by timing, and a
 * mail outage changes neither.
 */
export function accountMailRoutes(
  reset: PasswordReset,
  verification: EmailVerification | undefined,
  events: AuthEvents,
  logger: Logger,
  passwordMinLength: number,
) {
  /**
   * A route that takes an address and may mail a link to it: 202 with a fixed body at once, the work after
   * the answer (its content and timing must not depend on the lookup, nor on the mail server).
   */
  const linkRequestRoute = (
    path: string,
    summary: string,
    message: string,
    request: (email: string) => Promise<boolean>,
    record: (ctx: Context, sent: boolean, email: string) => void,
  ) =>
    route({
      method: 'POST',
      path,
      access: 'public',
      summary,
      body: Type.Object({ email: emailSchema }),
      responses: { 202: Type.Object({ message: Type.String() }) },
      handler: (ctx) => {
        const { email } = ctx.request.body;
        setImmediate(() => {
          request(email).then(
            (sent) => record(ctx as unknown as Context, sent, email),
            (error: unknown) =>
              logger.warn({ err: error, reqId: ctx.state.requestId }, `${path.slice(1)} request failed`),
          );
        });
        return { message };
      },
    });
  const routes = [
    linkRequestRoute(
      '/forgot-password',
      'Ask for a password-reset link by email (the same answer whether or not the address has an account)',
      ACCEPTED,
      (email) => reset.request(email),
      (ctx, sent, email) =>
        events.record(ctx, { action: 'password-reset-request', outcome: sent ? 'success' : 'ignored', email }),
    ),
    route({
      method: 'POST',
      path: '/reset-password',
      access: 'public',
      summary: "Set a new password with the emailed link's token: ends every session of the account",
      body: Type.Object({
        token: Type.String({ minLength: 1, maxLength: 200 }),
        password: Type.Unsafe<string>(chosenPasswordSchema(passwordMinLength)),
      }),
      responses: { 204: null },
      errors: {
        422: 'The token is invalid, expired or used already (`token`), or the password breaks the policy (`password`; the token still works)',
      },
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
  if (!verification) return routes;
  return [
    ...routes,
    route({
      method: 'POST',
      path: '/verify-email',
      access: 'public',
      summary: "Confirm the address with the emailed link's token",
      body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
      responses: { 204: null },
      errors: { 422: 'The token is invalid, expired or used already (`token`)' },
      handler: async (ctx) => {
        const userId = await verification.verify(ctx.request.body.token);
        if (!userId) {
          events.record(ctx, { action: 'email-verification', outcome: 'refused' });
          throw unprocessable([INVALID_TOKEN]);
        }
        events.record(ctx, { action: 'email-verification', outcome: 'success', userId });
        return undefined; // 204
      },
    }),
    linkRequestRoute(
      '/resend-verification',
      'Ask for a new verification link (the same answer whether or not the address has an unverified account)',
      RESEND_ACCEPTED,
      (email) => verification.resend(email),
      (ctx, sent, email) =>
        events.record(ctx, { action: 'verification-request', outcome: sent ? 'success' : 'ignored', email }),
    ),
  ];
}
