import { loadConfig } from '../../src/config/config';
import { inSearchTurn, SearchTurns } from '../../src/http/routing/search-turns';
import { HttpError } from '../../src/http/errors';
import request from 'supertest';
import { resourceModule } from '../../src/modules/kit';
import { notes } from '../support/resource-fixtures';
import { buildTestApp, TEST_SECRETS } from '../support/test-app';

// Searches take turns across the process (SEARCH_CONCURRENCY_MAX, search-turns.ts): at most that many run at
// once, whoever sends them; the rest wait in a round between callers, so one caller's many searches do not
// go before another caller's first; past the waiting bound, a 429.

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('search turns', () => {
  it('runs at most the slots at once, and serves waiting callers in a round: each oldest search before anyone’s second', async () => {
    const turns = new SearchTurns(1);
    const started: string[] = [];
    const finish = new Map<string, () => void>();
    const search = (caller: string, name: string) =>
      inSearchTurn(turns, caller, () => {
        started.push(name);
        return new Promise<void>((resolve) => finish.set(name, resolve));
      });
    const all = [
      search('flood', 'f1'),
      search('flood', 'f2'),
      search('flood', 'f3'),
      search('other', 'o1'),
      search('third', 't1'),
      search('flood', 'f4'),
    ];
    await tick();
    expect(started).toEqual(['f1']);
    expect(turns.load()).toEqual({ running: 1, waiting: 5 });
    for (const name of ['f1', 'f2', 'o1', 't1', 'f3']) {
      finish.get(name)!();
      await tick();
    }
    expect(started).toEqual(['f1', 'f2', 'o1', 't1', 'f3', 'f4']);
    finish.get('f4')!();
    await Promise.all(all);
    expect(turns.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses a caller’s searches past their own waiting bound while others still get in line', async () => {
    const turns = new SearchTurns(1, 256, 2);
    const held = turns.enter('someone') as () => void;
    const waiting = [turns.enter('flood'), turns.enter('flood')];
    expect(turns.enter('flood')).toBeUndefined();
    const other = turns.enter('other');
    expect(other).toBeInstanceOf(Promise);
    held();
    (await waiting[0]!)(); // the flood's first
    (await other!)(); // then the other caller's, before the flood's second
    (await waiting[1]!)();
    expect(turns.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the turn when a search fails, and refuses with 429 past the waiting bound', async () => {
    const turns = new SearchTurns(1, 1);
    await expect(inSearchTurn(turns, 'a', async () => Promise.reject(new Error('store down')))).rejects.toThrow(
      'store down',
    );
    expect(turns.load()).toEqual({ running: 0, waiting: 0 });
    let release!: () => void;
    const running = inSearchTurn(turns, 'a', () => new Promise<void>((resolve) => (release = resolve)));
    const waiting = inSearchTurn(turns, 'b', async () => 'b');
    const refused = await inSearchTurn(turns, 'c', async () => 'c').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HttpError);
    expect(refused).toMatchObject({ status: 429, message: 'Too many searches at once; try again shortly' });
    release();
    await running;
    expect(await waiting).toBe('b');
  });

  it('defaults to 1 on SQLite and 2 of the pool elsewhere, off under NODE_ENV=test', () => {
    const production = { ...TEST_SECRETS, NODE_ENV: 'production', COOKIE_SECURE: 'false', USER_STORE: 'database' };
    const slots = (env: Record<string, string>) => loadConfig(env).userRateLimit.searchConcurrency;
    expect(slots({ NODE_ENV: 'test' })).toBe(0);
    expect(slots({ ...production, DATABASE_URL: 'sqlite:./x.sqlite' })).toBe(1);
    expect(slots({ ...production, DATABASE_URL: 'postgres://u:p@localhost/db' })).toBe(2);
    expect(slots({ ...production, DATABASE_URL: 'postgres://u:p@localhost/db', SEARCH_CONCURRENCY_MAX: '0' })).toBe(0);
  });

  it("holds a list's search, not its plain page, while the process's search turns are taken", async () => {
    const t = await buildTestApp({
      env: { USER_STORE: 'database', SEARCH_CONCURRENCY_MAX: '1' },
      modules: [resourceModule(notes)],
    });
    try {
      const user = await t.signIn('user');
      const http = () => request(t.app.callback());
      const release = (await t.services.searchTurns!.enter('someone else'))!;
      let searched = false;
      const search = http()
        .get('/api/kit-notes?q=ecole')
        .set('Authorization', user.authorization)
        .then((answer) => ((searched = true), answer));
      await http().get('/api/kit-notes').set('Authorization', user.authorization).expect(200); // served meanwhile
      expect(searched).toBe(false);
      expect(t.services.searchTurns!.load()).toEqual({ running: 1, waiting: 1 });
      release();
      expect((await search).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
