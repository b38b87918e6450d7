import type { Logger } from '../logger';

// Mail goes out beside the request, never in its way: send() queues the message and returns at once, so
// an answer never waits for, or fails with, the mail server, and a slow or down server cannot tell a caller
// whether an address has an account. Each message is tried `attempts` times with growing pauses, then given
// up and logged. Logs name the kind of mail and the recipient's domain: never the address, the link or a token.

export interface MailMessage {
  /** What it is, for the logs and metrics (`password-reset`). */
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Hands one message to the mail server; rejects when it was not accepted. */
export type MailTransport = (message: Omit<MailMessage, 'kind'>) => Promise<void>;

export class MailOutbox {
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly transport: MailTransport,
    private readonly logger: Logger,
    private readonly attempts: number,
    /** The pause before the n-th retry is `firstPauseMs` × 4^(n-1): 1 s, 4 s, 16 s … by default. */
    private readonly firstPauseMs = 1000,
  ) {}

  /** Queues a message; returns at once. */
  send(message: MailMessage): void {
    const delivery = this.deliver(message).finally(() => this.pending.delete(delivery));
    this.pending.add(delivery);
  }

  /** Resolves when every queued message is delivered or given up (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async deliver({ kind, ...message }: MailMessage): Promise<void> {
    const domain = message.to.split('@').pop();
    for (let attempt = 1; attempt <= this.attempts; attempt += 1) {
      try {
        await this.transport(message);
        this.logger.info({ mail: kind, domain, attempt }, 'mail sent');
        return;
      } catch (error) {
        const code = (error as { code?: unknown; responseCode?: unknown }).responseCode ?? (error as { code?: unknown }).code;
        const last = attempt === this.attempts;
        this.logger.warn({ mail: kind, domain, attempt, code: code === undefined ? undefined : String(code) }, last ? 'mail given up' : 'mail delivery failed, retrying');
        if (!last) await new Promise((resolve) => setTimeout(resolve, this.firstPauseMs * 4 ** (attempt - 1)).unref());
      }
    }
  }
}
