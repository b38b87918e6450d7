import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

// A real SMTP server on loopback (smtp-server, nodemailer's sibling) that keeps what it receives, parsed
// (mailparser), so tests read the mails the service sent: headers, text, HTML and the links in them.

export interface CaughtMail {
  to: string;
  from: string;
  subject: string;
  text: string;
  html: string;
  raw: string;
  parsed: ParsedMail;
}

export class MailCatcher {
  readonly mails: CaughtMail[] = [];
  private server: SMTPServer | undefined;
  /** While true, every message is refused with a 451 (a mail server outage). */
  refusing = false;
  port = 0;

  async start(): Promise<string> {
    this.server = new SMTPServer({
      disabledCommands: ['STARTTLS', 'AUTH'], // plain loopback SMTP: no certificate to trust in tests
      logger: false,
      onData: (stream, _session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if (this.refusing) return callback(Object.assign(new Error('Try again later'), { responseCode: 451 }));
          const raw = Buffer.concat(chunks).toString('utf8');
          simpleParser(raw).then((parsed) => {
            const address = (value: ParsedMail['to'] | ParsedMail['from']) =>
              (Array.isArray(value) ? value[0]?.text : value?.text) ?? '';
            this.mails.push({
              to: address(parsed.to),
              from: address(parsed.from),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              raw,
              parsed,
            });
            callback();
          }, callback);
        });
      },
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** The mails to this address, waiting (bounded) until there are `count` of them. */
  async waitFor(to: string, count = 1, timeoutMs = 10_000): Promise<CaughtMail[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.mails.filter((mail) => mail.to.includes(to));
      if (found.length >= count || Date.now() > deadline) return found;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The token in a mail's link (`…?token=<value>`). */
export function tokenIn(text: string): string | undefined {
  return /[?&]token=([A-Za-z0-9_-]+)/.exec(text)?.[1];
}
