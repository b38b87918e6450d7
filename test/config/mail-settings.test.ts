import { loadConfig } from '../../src/config/config';
import { ConfigError } from '../../src/config/errors';

// Mail is off until SMTP_URL is set; then the settings it needs are checked at start-up, by name.

const base = { NODE_ENV: 'test', USER_STORE: 'database', DATABASE_URL: 'sqlite::memory:' };
const error = (env: Record<string, string>) => {
  try {
    loadConfig({ ...base, ...env });
  } catch (caught) {
    return caught instanceof ConfigError ? caught.message : String(caught);
  }
  return undefined;
};

describe('mail settings', () => {
  it('are off without SMTP_URL', () => {
    expect(loadConfig(base).mail).toBeUndefined();
  });

  it('read SMTP_URL, MAIL_FROM (default no-reply@ the public host), attempts and the reset TTL', () => {
    expect(
      loadConfig({ ...base, SMTP_URL: 'smtp://u:p@mail.example.com:587', PUBLIC_URL: 'https://api.example.com/' }).mail,
    ).toEqual({
      smtpUrl: 'smtp://u:p@mail.example.com:587',
      from: 'no-reply@api.example.com',
      attempts: 4,
      queueLimit: 1000,
      drainTimeoutMs: 5000,
      linkBase: 'https://api.example.com',
      passwordResetTtlMs: 30 * 60_000,
      emailVerification: 'off',
      emailVerificationTtlMs: 24 * 3_600_000,
    });
    const mail = loadConfig({
      ...base,
      SMTP_URL: 'smtps://mail.example.com',
      PUBLIC_URL: 'https://x.example',
      MAIL_FROM: 'Acme <hello@acme.example>',
      PASSWORD_RESET_TTL: '1h',
      MAIL_ATTEMPTS: '2',
    }).mail;
    expect(mail).toMatchObject({ from: 'Acme <hello@acme.example>', passwordResetTtlMs: 3_600_000, attempts: 2 });
    const bounded = loadConfig({
      ...base,
      SMTP_URL: 'smtp://mail.example.com',
      PUBLIC_URL: 'https://x.example',
      MAIL_ATTEMPTS: '1',
      MAIL_QUEUE_LIMIT: '50',
      MAIL_DRAIN_TIMEOUT: '0',
    }).mail;
    expect(bounded).toMatchObject({ attempts: 1, queueLimit: 50, drainTimeoutMs: 0 });
  });

  it.each([
    [{ SMTP_URL: 'http://mail.example.com', PUBLIC_URL: 'https://x.example' }, /SMTP_URL.*smtp:\/\/ or smtps:\/\//],
    [{ SMTP_URL: 'not a url', PUBLIC_URL: 'https://x.example' }, /SMTP_URL.*must be a URL/],
    [{ SMTP_URL: 'smtp://mail.example.com' }, /PUBLIC_URL.*links in mails/],
    [
      { SMTP_URL: 'smtp://mail.example.com', PUBLIC_URL: 'https://x.example', USER_STORE: 'demo' },
      /USER_STORE=database/,
    ],
    [{ SMTP_URL: 'smtp://mail.example.com', PUBLIC_URL: 'https://x.example', MAIL_FROM: 'nobody' }, /MAIL_FROM/],
    [
      { SMTP_URL: 'smtp://mail.example.com', PUBLIC_URL: 'https://x.example', PASSWORD_RESET_TTL: '2m' },
      /PASSWORD_RESET_TTL.*between 5m and 24h/,
    ],
    [{ EMAIL_VERIFICATION: 'required' }, /EMAIL_VERIFICATION.*needs SMTP_URL/],
    [
      { SMTP_URL: 'smtp://mail.example.com', PUBLIC_URL: 'https://x.example', MAIL_ATTEMPTS: '0' },
      /MAIL_ATTEMPTS.*from 1 to 10/,
    ],
    [
      { SMTP_URL: 'smtp://mail.example.com', PUBLIC_URL: 'https://x.example', MAIL_QUEUE_LIMIT: '0' },
      /MAIL_QUEUE_LIMIT.*from 1 to 100000/,
    ],
    [
      { SMTP_URL: 'smtp://mail.example.com', PUBLIC_URL: 'https://x.example', MAIL_DRAIN_TIMEOUT: '2m' },
      /MAIL_DRAIN_TIMEOUT.*at most 60s/,
    ],
    [
      { SMTP_URL: 'smtp://mail.example.com', PUBLIC_URL: 'https://x.example', EMAIL_VERIFICATION: 'sometimes' },
      /EMAIL_VERIFICATION/,
    ],
    [
      { SMTP_URL: 'smtp://mail.example.com', PUBLIC_URL: 'https://x.example', EMAIL_VERIFICATION_TTL: '30m' },
      /EMAIL_VERIFICATION_TTL.*between 1h and 7d/,
    ],
  ])('refuse %j, naming the variable', (env, message) => {
    expect(error(env as Record<string, string>)).toMatch(message);
  });
});
