import { ConfigError } from './errors';
import { integer, oneOf, read, timerMs, type Env } from './readers';

// Mail and the account flows that need it (docs/accounts.md). Off unless SMTP_URL is set: then password
// reset by email is on (with USER_STORE=database), and its links point at PUBLIC_URL.

export interface MailSettings {
  /** smtp:// or smtps:// URL of the server mail goes through (credentials in it, if any). */
  smtpUrl: string;
  /** The From address. */
  from: string;
  /** Delivery attempts per message (the first included) before it is given up and logged. */
  attempts: number;
  /** Messages the outbox holds at once (a mail outage must not grow memory without end); past it new mail is dropped and logged. */
  queueLimit: number;
  /** At shutdown, how long queued mail may still be tried before what is left is logged as dropped. */
  drainTimeoutMs: number;
  /** Base of the links mails carry: PUBLIC_URL. */
  linkBase: string;
  /** How long a password-reset link works. */
  passwordResetTtlMs: number;
  /** off: no verification; optional: registration mails a link, login does not wait for it; required: login waits. */
  emailVerification: EmailVerificationMode;
  /** How long a verification link works. */
  emailVerificationTtlMs: number;
}

export const EMAIL_VERIFICATION_MODES = ['off', 'optional', 'required'] as const;
export type EmailVerificationMode = (typeof EMAIL_VERIFICATION_MODES)[number];

const FIVE_MINUTES = 5 * 60_000;
const ONE_DAY = 24 * 60 * 60_000;

/** The mail settings, or undefined when SMTP_URL is unset (no mail, no reset routes). */
export function mailSettings(env: Env, publicUrl: string | undefined, userStore: string): MailSettings | undefined {
  const smtpUrl = read(env, 'SMTP_URL');
  const emailVerification = oneOf(env, 'EMAIL_VERIFICATION', EMAIL_VERIFICATION_MODES, 'off');
  if (!smtpUrl && emailVerification !== 'off')
    throw new ConfigError('EMAIL_VERIFICATION', 'needs SMTP_URL: the links go by mail');
  if (!smtpUrl) return undefined;
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new ConfigError('SMTP_URL', 'must be a URL such as smtp://user:password@mail.example.com:587');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new ConfigError('SMTP_URL', 'must start with smtp:// or smtps://');
  if (!publicUrl) throw new ConfigError('PUBLIC_URL', 'is needed with SMTP_URL: the links in mails point at it');
  if (userStore !== 'database')
    throw new ConfigError('SMTP_URL', 'needs USER_STORE=database (mails reset and verify stored accounts)');
  const from = read(env, 'MAIL_FROM') ?? `no-reply@${new URL(publicUrl).hostname}`;
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(from) && !/^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/.test(from)) {
    throw new ConfigError(
      'MAIL_FROM',
      'must be an address (a@example.com) or a name and address (Service <a@example.com>)',
    );
  }
  const passwordResetTtlMs = timerMs(env, 'PASSWORD_RESET_TTL', '30m');
  if (passwordResetTtlMs < FIVE_MINUTES || passwordResetTtlMs > ONE_DAY)
    throw new ConfigError('PASSWORD_RESET_TTL', 'must be between 5m and 24h');
  const emailVerificationTtlMs = timerMs(env, 'EMAIL_VERIFICATION_TTL', '24h');
  if (emailVerificationTtlMs < 60 * 60_000 || emailVerificationTtlMs > 7 * ONE_DAY)
    throw new ConfigError('EMAIL_VERIFICATION_TTL', 'must be between 1h and 7d');
  const drainTimeoutMs = timerMs(env, 'MAIL_DRAIN_TIMEOUT', '5s', true);
  if (drainTimeoutMs > 60_000)
    throw new ConfigError('MAIL_DRAIN_TIMEOUT', 'must be at most 60s (the platform stops a slow shutdown anyway)');
  return {
    smtpUrl,
    from,
    attempts: integer(env, 'MAIL_ATTEMPTS', 4, 1, 10),
    queueLimit: integer(env, 'MAIL_QUEUE_LIMIT', 1000, 1, 100_000),
    drainTimeoutMs,
    linkBase: publicUrl.replace(/\/$/, ''),
    passwordResetTtlMs,
    emailVerification,
    emailVerificationTtlMs,
  };
}
