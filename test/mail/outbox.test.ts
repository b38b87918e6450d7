import pino from 'pino';
import { MailOutbox, type MailMessage, type MailTransport } from '../../src/mail/outbox';

// The outbox's retries, give-up, bound and shutdown drain, against a transport that fails, answers or hangs
// as each case needs, and a real pino logger whose lines are kept: each line is read for what it must say
// and for what it must never carry (the address, the link, the token).

const ADDRESS = 'someone.private@example.org';
const TOKEN = 'tok_9f8e7d6c5b4a';
const message = (kind = 'password-reset'): MailMessage => ({
  kind,
  to: ADDRESS,
  subject: 'Reset your password',
  text: `https://app.example.test/reset?token=${TOKEN}`,
  html: `<a href="https://app.example.test/reset?token=${TOKEN}">reset</a>`,
});

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const said = (text: string) => lines.filter((line) => String(line.msg).includes(text));
  return { logger, lines, said };
}

const leaksNothing = (lines: Record<string, unknown>[]) => {
  const all = JSON.stringify(lines);
  expect(all).not.toContain(ADDRESS);
  expect(all).not.toContain('someone.private');
  expect(all).not.toContain(TOKEN);
};

/** A transport that fails its first `failures` calls (with an SMTP code), then accepts; counts every call. */
function flaky(failures: number) {
  const calls: Omit<MailMessage, 'kind'>[] = [];
  const transport: MailTransport = async (sent) => {
    calls.push(sent);
    if (calls.length <= failures) throw Object.assign(new Error('451 try later'), { responseCode: 451 });
  };
  return { calls, transport };
}

/** A transport whose calls hang until released. */
function hanging() {
  const waiting: (() => void)[] = [];
  const transport: MailTransport = () => new Promise<void>((resolve) => waiting.push(resolve));
  return { waiting, transport, releaseAll: () => waiting.splice(0).forEach((resolve) => resolve()) };
}

describe('mail outbox: attempts', () => {
  it.each([1, 2, 3, 4, 5])(
    'with %i attempt(s), a server that always fails is tried exactly that often, then given up with one log line',
    async (attempts) => {
      const { logger, lines, said } = capture();
      const { calls, transport } = flaky(Infinity);
      const outbox = new MailOutbox(transport, logger, { attempts, maxQueued: 10, firstPauseMs: 1 });
      expect(outbox.send(message())).toBe(true);
      await outbox.idle();
      expect(calls).toHaveLength(attempts);
      expect(said('mail given up')).toEqual([
        expect.objectContaining({
          level: 40,
          mail: 'password-reset',
          domain: 'example.org',
          attempt: attempts,
          code: '451',
        }),
      ]);
      expect(said('retrying')).toHaveLength(attempts - 1);
      expect(said('mail sent')).toHaveLength(0);
      leaksNothing(lines);
    },
  );

  it.each([1, 2, 3, 4])(
    'with 4 attempts, a server that accepts on try %i gets the message once accepted, and it is logged as sent',
    async (accepting) => {
      const { logger, lines, said } = capture();
      const { calls, transport } = flaky(accepting - 1);
      const outbox = new MailOutbox(transport, logger, { attempts: 4, maxQueued: 10, firstPauseMs: 1 });
      outbox.send(message());
      await outbox.idle();
      expect(calls).toHaveLength(accepting);
      expect(calls[accepting - 1]).toEqual({
        to: ADDRESS,
        subject: 'Reset your password',
        text: expect.stringContaining(TOKEN),
        html: expect.stringContaining(TOKEN),
      });
      expect(said('mail sent')).toEqual([expect.objectContaining({ attempt: accepting })]);
      expect(said('mail given up')).toHaveLength(0);
      leaksNothing(lines);
    },
  );

  it('MAIL_ATTEMPTS=1 sends once with a working server', async () => {
    const { logger } = capture();
    const { calls, transport } = flaky(0);
    const outbox = new MailOutbox(transport, logger, { attempts: 1, maxQueued: 10 });
    outbox.send(message());
    await outbox.idle();
    expect(calls).toHaveLength(1);
  });

  it('pauses 1×, 4×, 16× the first pause between tries', async () => {
    const { logger } = capture();
    const times: number[] = [];
    const outbox = new MailOutbox(
      async () => {
        times.push(Date.now());
        throw new Error('down');
      },
      logger,
      { attempts: 4, maxQueued: 10, firstPauseMs: 20 },
    );
    outbox.send(message());
    await outbox.idle();
    const pauses = times.slice(1).map((time, index) => time - times[index]);
    [20, 80, 320].forEach((expected, index) => {
      expect(pauses[index]).toBeGreaterThanOrEqual(expected - 2);
      expect(pauses[index]).toBeLessThan(expected + 200);
    });
  });

  it('refuses a configuration of no attempt', () => {
    expect(() => new MailOutbox(flaky(0).transport, capture().logger, { attempts: 0, maxQueued: 1 })).toThrow(
      /at least one attempt/,
    );
  });
});

describe('mail outbox: bound', () => {
  it('holds at most maxQueued messages, drops the next with a clear error line, and takes mail again once there is room', async () => {
    const { logger, lines, said } = capture();
    const server = hanging();
    const outbox = new MailOutbox(server.transport, logger, { attempts: 1, maxQueued: 3 });
    expect([1, 2, 3].map(() => outbox.send(message()))).toEqual([true, true, true]);
    expect(outbox.send(message('email-verification'))).toBe(false);
    expect(outbox.size).toBe(3);
    expect(said('the outbox is full')).toEqual([
      expect.objectContaining({ level: 50, mail: 'email-verification', domain: 'example.org', queued: 3 }),
    ]);
    expect(String(said('the outbox is full')[0].msg)).toMatch(/3 messages waiting, MAIL_QUEUE_LIMIT/);
    server.releaseAll();
    await outbox.idle();
    expect(outbox.send(message())).toBe(true);
    server.releaseAll();
    await outbox.idle();
    expect(said('mail sent')).toHaveLength(4);
    leaksNothing(lines);
  });

  it('counts a message paused before its retry as held', async () => {
    const { logger, said } = capture();
    const outbox = new MailOutbox(flaky(Infinity).transport, logger, {
      attempts: 2,
      maxQueued: 1,
      firstPauseMs: 60_000,
    });
    outbox.send(message());
    await new Promise((resolve) => setImmediate(resolve));
    expect(outbox.send(message())).toBe(false);
    expect(said('the outbox is full')).toHaveLength(1);
    await outbox.close(1000);
  });
});

describe('mail outbox: shutdown drain', () => {
  it('tries paused retries at once and resolves as soon as the queue is empty', async () => {
    const { logger, said } = capture();
    const { calls, transport } = flaky(1);
    const outbox = new MailOutbox(transport, logger, { attempts: 3, maxQueued: 10, firstPauseMs: 60_000 });
    outbox.send(message());
    await new Promise((resolve) => setImmediate(resolve));
    const started = Date.now();
    await outbox.close(5000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(calls).toHaveLength(2);
    expect(said('mail sent')).toHaveLength(1);
    expect(said('dropped')).toHaveLength(0);
  });

  it('stops waiting at the deadline and logs each mail still pending as dropped, without address or token', async () => {
    const { logger, lines, said } = capture();
    const server = hanging();
    const outbox = new MailOutbox(server.transport, logger, { attempts: 2, maxQueued: 10 });
    outbox.send(message());
    outbox.send(message('email-verification'));
    const started = Date.now();
    await outbox.close(100);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(95);
    expect(took).toBeLessThan(1000);
    expect(said('mail dropped at shutdown')).toEqual([
      expect.objectContaining({ level: 50, mail: 'password-reset', domain: 'example.org', attempt: 1 }),
      expect.objectContaining({ level: 50, mail: 'email-verification', domain: 'example.org', attempt: 1 }),
    ]);
    leaksNothing(lines);
    server.releaseAll();
  });

  it('takes no new mail once closing, and says so', async () => {
    const { logger, said } = capture();
    const { calls, transport } = flaky(0);
    const outbox = new MailOutbox(transport, logger, { attempts: 1, maxQueued: 10 });
    await outbox.close(10);
    expect(outbox.send(message())).toBe(false);
    expect(calls).toHaveLength(0);
    expect(said('shutting down')).toEqual([expect.objectContaining({ level: 50, mail: 'password-reset' })]);
  });
});
