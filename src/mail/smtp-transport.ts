import type * as Nodemailer from 'nodemailer';
import type { MailTransport } from './outbox';

/**
 * Delivery through nodemailer's SMTP transport (SMTP_URL: smtp:// with STARTTLS when offered, smtps:// for
 * TLS from the start). nodemailer is loaded here, when mail is configured, not by every service.
 */
export function smtpTransport(smtpUrl: string, from: string, timeoutMs = 10_000): MailTransport {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- optional: only a service that sends mail loads it
  const nodemailer = require('nodemailer') as typeof Nodemailer;
  const url = new URL(smtpUrl);
  const transporter = nodemailer.createTransport({
    host: url.hostname,
    port: Number(url.port) || (url.protocol === 'smtps:' ? 465 : 587),
    secure: url.protocol === 'smtps:',
    auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  return async (message) => {
    await transporter.sendMail({ from, ...message });
  };
}
