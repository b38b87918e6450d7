import type { Logger } from '../logger';

// Mail goes out beside the request, never in its way: send() queues the message and returns at once, so
// an answer never waits for, or fails with, the mail server, and a slow or down server cannot tell a caller
// whether an address has an account. Each message is tried `attempts` times with growing pauses, then given
// up and logged. The queue is bounded (a long mail outage must not grow memory without end): past the bound
// a new message is dropped with a log line. At shutdown the queue is drained until a deadline, pauses cut
// short; what is still pending then is logged as dropped. Logs name the kind of mail and the recipient's
// domain: never the address, the link or a token.

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

export interface OutboxOptions {
  /** Delivery attempts per message, the first included (1 = one try, no retry). */
  attempts: number;
  /** Messages held at once (waiting, being sent or paused before a retry); past it a new one is dropped. */
  maxQueued: number;
  /** The pause before the n-th retry is `firstPauseMs` × 4^(n-1): 1 s, 4 s, 16 s … by default. */
  firstPauseMs?: number;
}

/** What the logs may say of a queued message. */
interface Entry {
  kind: string;
  domain: string | undefined;
  attempt: number;
}

export class MailOutbox {
  private readonly pending = new Map<Promise<void>, Entry>();
  private readonly firstPauseMs: number;
  /** Set by close(): wakes every paused retry so the drain does not wait out a 16-second pause. */
  private wakeAll: (() => void) | undefined;
  private readonly closing: Promise<void>;
  private closed = false;

  constructor(
    private readonly transport: MailTransport,
    private readonly logger: Logger,
    private readonly options: OutboxOptions,
  ) {
    if (!Number.isInteger(options.attempts) || options.attempts < 1)
      throw new Error('the mail outbox needs at least one attempt');
    this.firstPauseMs = options.firstPauseMs ?? 1000;
    this.closing = new Promise((resolve) => (this.wakeAll = resolve));
  }

  /** Messages queued and not yet delivered or given up. */
  get size(): number {
    return this.pending.size;
  }

  /** Queues a message and returns at once; false when it was dropped (queue full, or shutting down), which is logged. */
  send(message: MailMessage): boolean {
    const entry: Entry = { kind: message.kind, domain: message.to.split('@').pop(), attempt: 0 };
    if (this.closed) {
      this.logger.error({ mail: entry.kind, domain: entry.domain }, 'mail dropped: the service is shutting down');
      return false;
    }
    if (this.pending.size >= this.options.maxQueued) {
      this.logger.error(
        { mail: entry.kind, domain: entry.domain, queued: this.pending.size },
        `mail dropped: the outbox is full (${this.options.maxQueued} messages waiting, MAIL_QUEUE_LIMIT); is the mail server reachable?`,
      );
      return false;
    }
    const delivery: Promise<void> = this.deliver(message, entry).finally(() => this.pending.delete(delivery));
    this.pending.set(delivery, entry);
    return true;
  }

  /** Resolves when every queued message is delivered or given up (tests). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending.keys()]);
  }

  /**
   * Shutdown: takes no new mail, tries what is queued at once (no more pauses) until `deadlineMs`, then logs
   * each message still pending as dropped. Resolves by the deadline whatever the mail server does.
   */
  async close(deadlineMs: number): Promise<void> {
    this.closed = true;
    this.wakeAll?.();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'deadline'>(
      (resolve) => (timer = setTimeout(() => resolve('deadline'), deadlineMs).unref()),
    );
    const outcome = await Promise.race([this.idle().then(() => 'drained' as const), deadline]);
    clearTimeout(timer);
    if (outcome === 'drained') return;
    for (const entry of this.pending.values()) {
      this.logger.error(
        { mail: entry.kind, domain: entry.domain, attempt: entry.attempt },
        'mail dropped at shutdown: not delivered before the drain deadline',
      );
    }
  }

  private async deliver({ kind, ...message }: MailMessage, entry: Entry): Promise<void> {
    const { attempts } = this.options;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      entry.attempt = attempt;
      try {
        await this.transport(message);
        this.logger.info({ mail: kind, domain: entry.domain, attempt }, 'mail sent');
        return;
      } catch (error) {
        const code = (error as { responseCode?: unknown }).responseCode ?? (error as { code?: unknown }).code;
        const last = attempt === attempts;
        this.logger.warn(
          { mail: kind, domain: entry.domain, attempt, attempts, code: code === undefined ? undefined : String(code) },
          last ? `mail given up after ${attempts} attempt(s)` : 'mail delivery failed, retrying',
        );
        if (!last) await this.pause(this.firstPauseMs * 4 ** (attempt - 1));
      }
    }
  }

  /** Waits before a retry, or less when shutdown begins. */
  private async pause(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((resolve) => (timer = setTimeout(resolve, ms).unref())), this.closing]);
    clearTimeout(timer);
  }
}
