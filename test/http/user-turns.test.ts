import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { UserConcurrency } from '../../src/auth/user-concurrency';
import { loadConfig } from '../../src/config/config';
import { Gate, probeModule } from '../support/probe-module';
import { buildTestApp, TEST_SECRETS, type TestApp } from '../support/test-app';

// Turns per user (USER_CONCURRENCY_MAX): at most that many requests of one signed-in user run at once in a
// process; the rest wait, first come first served, and other users are not held behind them. Real HTTP.

const until = async (check: () => boolean) => {
  for (let i = 0; i < 500 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
};
const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

describe('turns per user, over HTTP', () => {
  let t: TestApp;
  let gate: Gate;
  let server: Server;
  let base: string;
  beforeEach(async () => {
    gate = new Gate();
    t = await buildTestApp({
      env: { USER_STORE: 'database', USER_CONCURRENCY_MAX: '1' },
      modules: [probeModule(gate)],
    });
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    gate.open();
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });
  const held = (authorization: string) => request(base).get('/api/probe/held').set('Authorization', authorization);

  it("a user's second request waits for the first; another user's runs meanwhile; all are answered", async () => {
    const first = await t.signIn('user');
    const other = await t.signIn('user');
    const answers = [
      held(first.authorization).then((r) => r),
      held(first.authorization).then((r) => r),
      held(other.authorization).then((r) => r),
    ];
    await until(() => gate.entered === 2);
    await settle();
    expect(gate.entered).toBe(2); // the first user's second request has not reached the handler
    gate.open();
    expect((await Promise.all(answers)).map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(gate.entered).toBe(3);
  });

  it('exempt roles (admin by default) are not held to turns', async () => {
    const admin = await t.signIn('admin');
    const answers = [held(admin.authorization).then((r) => r), held(admin.authorization).then((r) => r)];
    await until(() => gate.entered === 2);
    gate.open();
    expect((await Promise.all(answers)).map((answer) => answer.status)).toEqual([200, 200]);
  });

  it('a waiting request whose client gave up does no work: the turn passes to the next', async () => {
    const user = await t.signIn('user');
    const running = held(user.authorization).then((r) => r);
    await until(() => gate.entered === 1);
    const abandoned = httpRequest(`${base}/api/probe/held`, { headers: { Authorization: user.authorization } });
    abandoned.on('error', () => undefined);
    abandoned.end();
    await settle();
    abandoned.destroy();
    await settle();
    const next = held(user.authorization).then((r) => r);
    gate.open();
    expect((await running).status).toBe(200);
    expect((await next).status).toBe(200);
    expect(gate.entered).toBe(2); // the first and the last: the abandoned one never reached the handler
  });
});

describe('turns per user, the counter', () => {
  it('refuses (undefined) past the waiting bound, hands turns on in order, and forgets a user with none', async () => {
    const turns = new UserConcurrency(1, 2);
    const first = turns.enter('u');
    expect(typeof first).toBe('function');
    const order: string[] = [];
    const second = (turns.enter('u') as Promise<() => void>).then((release) => (order.push('second'), release));
    const third = (turns.enter('u') as Promise<() => void>).then((release) => (order.push('third'), release));
    expect(turns.enter('u')).toBeUndefined();
    expect(typeof turns.enter('v')).toBe('function'); // another user is not held
    (first as () => void)();
    (first as () => void)(); // a second call of one release changes nothing
    (await second)();
    (await third)();
    expect(order).toEqual(['second', 'third']);
    expect(turns.running('u')).toBe(0);
  });

  it('defaults: one turn on SQLite (one connection), four on a pooled engine, none under NODE_ENV=test', () => {
    const production = { ...TEST_SECRETS, NODE_ENV: 'production', COOKIE_SECURE: 'false', USER_STORE: 'database' };
    const on = (env: Record<string, string>) => {
      try {
        return loadConfig(env).userRateLimit.concurrency;
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(on({ NODE_ENV: 'test' })).toBe(0);
    expect(on({ ...production, DATABASE_URL: 'sqlite:./x.sqlite' })).toBe(1);
    expect(on({ ...production, DATABASE_URL: 'postgres://u:p@localhost/db' })).toBe(4);
    expect(on({ ...production, DATABASE_URL: 'postgres://u:p@localhost/db', USER_CONCURRENCY_MAX: '0' })).toBe(0);
  });
});
