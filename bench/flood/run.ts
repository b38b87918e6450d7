import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Sequelize } from 'sequelize';
import { loadConfig, type Config } from '../../src/config/config';
import { modules as registeredModules } from '../../src/modules';
import { startService, type RunningService } from '../../src/service';
import { ServerProcess } from '../child-process';
import { get, percentile } from '../scale/measure';
import { CapturingLogger } from '../scale/plans';
import { analyze, seedNotes } from '../scale/seed';
import type { ScaleEngine } from '../scale/settings';
import { benchNotes, benchNotesModule } from '../scale/notes-resource';

// `npm run bench:flood`: do signed-in users flooding the service with searches starve another user?
// Per engine (FLOOD_ENGINES: sqlite, postgres from TEST_POSTGRES_URL, mysql from TEST_MYSQL_URL), the real
// service in its own process (bench/flood/service.ts) and the flooding clients in another
// (bench/flood/flooder.ts), so neither the service's event loop nor the sampler's here waits on the flood's
// client work, with the service's default budgets (USER_RATE_LIMIT_*, USER_CONCURRENCY_MAX,
// SEARCH_CONCURRENCY_MAX, DATABASE_TIMEOUT: settable as usual), over real HTTP. Three flooding users own
// FLOOD_ROWS notes each, another 1,000. For each scenario (one account running 20 loops, three accounts 8 each;
// a letter term no title holds, and `---`, which no trigram serves) the other user's first page is timed
// FLOOD_SAMPLES times alone ("quiet"), then again while the accounts run their loops of `?q=<term>` back to
// back, each loop sending its next request when the last is answered (whatever the status: a flood does not
// back off). Prints the other user's p50 / max in both phases, their ratio, and what the flood was answered.

const env = process.env;
const ENGINES = (env.FLOOD_ENGINES ?? 'sqlite,postgres,mysql')
  .split(',')
  .map((engine) => engine.trim()) as ScaleEngine[];
const ROWS = Number(env.FLOOD_ROWS ?? 200_000);
const SAMPLES = Number(env.FLOOD_SAMPLES ?? 30);
const PAGE = '/api/notes?limit=20';
/** Who floods, how, and with what: one account's 20 loops and three accounts' 8, a letter term and one without letters. */
const SCENARIOS = [
  { accounts: 1, loops: 20, term: 'qqqqxz' },
  { accounts: 1, loops: 20, term: '---' },
  { accounts: 3, loops: 8, term: 'qqqqxz' },
  { accounts: 3, loops: 8, term: '---' },
] as const;
const log = (line: string) => process.stderr.write(`${line}\n`);
const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** The service's settings from the environment (USER_CONCURRENCY_MAX, DATABASE_TIMEOUT…), production mode. */
function serviceEnv(url: string): NodeJS.ProcessEnv {
  // The request budget off unless set: every flood request then reaches the store, the worst the turns must hold
  // (with it, 600 a minute an account, a flood is soon answered 429 without touching the database).
  return {
    USER_RATE_LIMIT_MAX: '0',
    ...env,
    NODE_ENV: 'production',
    JWT_SECRET: randomBytes(48).toString('base64url'),
    REFRESH_TOKEN_SECRET: randomBytes(48).toString('base64url'),
    DATABASE_URL: url,
    USER_STORE: 'database',
    LOG_LEVEL: 'info',
    COOKIE_SECURE: 'false',
  };
}

/** The service in this process, to migrate the database and create the two users; stopped before the measurement. */
async function setUp(settings: NodeJS.ProcessEnv): Promise<RunningService> {
  return startService(loadConfig(settings), new CapturingLogger().logger, {
    modules: [...registeredModules, benchNotesModule],
    port: 0,
    host: '127.0.0.1',
  });
}

async function signIn(service: RunningService, email: string): Promise<{ id: string; authorization: string }> {
  const user = await service.services.users.create({
    email,
    passwordHash: 'not-a-password-hash',
    role: 'user',
    name: null,
  });
  return { id: user.id, authorization: `Bearer ${service.services.tokens.signAccessToken(user)}` };
}

/** The other user's page, SAMPLES times: the time of each answer, and the answers that were not 200 (a 503 counts its time too). */
async function sample(baseUrl: string, authorization: string): Promise<{ times: number[]; failed: number }> {
  const times: number[] = [];
  let failed = 0;
  for (let i = 0; i < SAMPLES; i += 1) {
    const answer = await get(baseUrl, PAGE, authorization);
    if (answer.status !== 200) failed += 1;
    times.push(answer.ms);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { times, failed };
}

/**
 * Runs `work` while the flooding accounts' loops (flooder.ts, a process of its own) run against the service,
 * one second after they start; answers what `work` gave, the statuses the flood was answered, and how long it
 * ran. The flooding client is stopped, and killed if it has not gone, whatever happens.
 */
async function whileFlooded<T>(
  baseUrl: string,
  flood: { path: string; authorizations: string[]; loops: number },
  work: () => Promise<T>,
): Promise<{ result: T; statuses: Map<number, number>; seconds: number }> {
  const flooder = fork(join(__dirname, 'flooder.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const message = <M>(): Promise<M> =>
    new Promise((resolve, reject) => {
      flooder.once('message', (value) => resolve(value as M));
      flooder.once('exit', (code) => reject(new Error(`the flooding client exited (code ${code})`)));
    });
  try {
    const started = performance.now();
    const floodStarted = message<{ started: true }>();
    flooder.send({ baseUrl, ...flood });
    await floodStarted;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const result = await work();
    const report = message<{ statuses: [number, number][] }>();
    flooder.send('stop');
    const statuses = new Map((await report).statuses);
    return { result, statuses, seconds: (performance.now() - started) / 1000 };
  } finally {
    if (flooder.exitCode === null) flooder.kill();
  }
}

/** The engine's database: a file on SQLite, the given empty database elsewhere. */
function engineUrl(engine: ScaleEngine, scratch: string): string {
  if (engine === 'sqlite') return `sqlite:${join(scratch, 'flood.sqlite')}`;
  const url = engine === 'postgres' ? env.TEST_POSTGRES_URL : env.TEST_MYSQL_URL;
  if (!url)
    throw new Error(
      `${engine}: ${engine === 'postgres' ? 'TEST_POSTGRES_URL' : 'TEST_MYSQL_URL'} is not set (an empty database)`,
    );
  return url;
}

/** One scenario: the other user's page quiet, then under the accounts' loops; one line of figures. */
async function measure(
  engine: ScaleEngine,
  baseUrl: string,
  other: string,
  flooders: string[],
  scenario: (typeof SCENARIOS)[number],
  config: Config,
): Promise<void> {
  const quiet = await sample(baseUrl, other);
  const flood = {
    path: `/api/notes?limit=20&q=${encodeURIComponent(scenario.term)}`,
    authorizations: flooders.slice(0, scenario.accounts),
    loops: scenario.loops,
  };
  const { result: loaded, statuses, seconds } = await whileFlooded(baseUrl, flood, () => sample(baseUrl, other));
  const answered = [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  const [q, l] = [median(quiet.times), median(loaded.times)];
  const limits = `USER_CONCURRENCY_MAX ${config.userRateLimit.concurrency}, SEARCH_CONCURRENCY_MAX ${config.userRateLimit.searchConcurrency}`;
  console.log(
    `${engine}: ${scenario.accounts} account${scenario.accounts === 1 ? '' : 's'} × ${scenario.loops} loops of q=${scenario.term}: other user's page quiet p50 ${q.toFixed(1)} ms (max ${Math.max(...quiet.times).toFixed(1)}, non-200 ${quiet.failed}); ` +
      `flooded p50 ${l.toFixed(1)} ms (max ${Math.max(...loaded.times).toFixed(1)}, non-200 ${loaded.failed}): ×${(l / q).toFixed(2)}; flood answered ${answered} in ${seconds.toFixed(1)} s; ${ROWS} rows an account, ${limits}`,
  );
}

async function floodEngine(engine: ScaleEngine, scratch: string): Promise<void> {
  const url = engineUrl(engine, scratch);
  const settings = serviceEnv(url);
  const setup = await setUp(settings);
  const config = setup.services.config;
  const sequelize =
    engine === 'sqlite'
      ? new Sequelize({ dialect: 'sqlite', storage: url.slice('sqlite:'.length), logging: false })
      : new Sequelize(url, { logging: false, pool: { max: 1 } });
  let service: ServerProcess | undefined;
  try {
    const flooders = [];
    for (let i = 0; i < 3; i += 1) flooders.push(await signIn(setup, `flooder-${i}-${Date.now()}@bench.test`));
    const other = await signIn(setup, `other-${Date.now()}@bench.test`);
    await setup.stop();
    for (const [index, flooder] of flooders.entries())
      await seedNotes(sequelize, engine, 'notes', flooder.id, ROWS, index);
    await seedNotes(sequelize, engine, 'notes', other.id, 1_000, flooders.length);
    await sequelize.query('UPDATE notes SET title_search = lower(title)'); // the shadow the store keeps (titles are plain lower-case words)
    await analyze(sequelize, engine, 'notes');
    // The same secrets as the set-up's service: the tokens it signed stay valid.
    service = await ServerProcess.start('flood service', {
      script: join(__dirname, 'service.ts'),
      env: settings,
      stdout: 'ignore',
      nodeFlags: ['--import', 'tsx'],
      startTimeoutMs: 120_000,
    });
    const baseUrl = `http://127.0.0.1:${service.port}`;
    for (let i = 0; i < 3; i += 1) await get(baseUrl, PAGE, other.authorization);
    for (const scenario of SCENARIOS)
      await measure(
        engine,
        baseUrl,
        other.authorization,
        flooders.map((flooder) => flooder.authorization),
        scenario,
        config,
      );
  } finally {
    if (engine !== 'sqlite') {
      // Leaves the database as it was given: the table and the record of its migration, so the next run creates it again.
      await sequelize.query('DROP TABLE IF EXISTS notes').catch(() => undefined);
      await sequelize
        .query(`DELETE FROM schema_migrations WHERE name = '${benchNotes.migrations[0]!.name}'`)
        .catch(() => undefined);
    }
    await sequelize.close();
    await service?.stop(5_000);
    await setup.stop();
  }
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'flood-'));
  try {
    for (const engine of ENGINES) {
      log(`${engine}: seeding 3 × ${ROWS} + 1000 notes…`);
      await floodEngine(engine, scratch);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  log(`flood bench failed: ${error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
});
