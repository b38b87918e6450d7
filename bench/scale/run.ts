import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Sequelize } from 'sequelize';
import { loadConfig } from '../../src/config/config';
import { modules as registeredModules } from '../../src/modules';
import { startService, type RunningService } from '../../src/service';
import { isId } from '../../src/stores/ids';
import { encodeCursor } from '../../src/stores/kit/cursor';
import { ADMIN_ROLE } from '../../src/stores/kit/owner-scope';
import { get, measureKind, resolvePath, type Outcome, type PageKind } from './measure';
import {
  createListIndexes,
  listIndexColumns,
  removeListIndexes,
} from '../../src/stores/sql/migrations/list-index-steps';
import {
  createSearchIndex,
  removeSearchIndex,
  SEARCH_INDEX_SHAPES,
} from '../../src/stores/sql/migrations/search-index';
import { BENCH_SEARCH_SHADOWS, benchNotes, benchNotesModule } from './notes-resource';
import { CapturingLogger, explain, listStatements } from './plans';
import { renderEngine, type EngineReport, type KindRow } from './report';
import { analyze, checkUserColumns, SEARCH_TERMS, seedNotes, seedUsers } from './seed';
import { readScaleSettings, type ScaleEngine, type ScaleSettings } from './settings';

// `make bench-scale` (bench/scale/run.sh starts the databases, then runs this): on each engine, the real app
// with a generated-style `notes` module, in this process, over real HTTP on 127.0.0.1; one owner per size
// (BENCH_SCALE_SIZES) in one table, seeded in bulk after the migrations; each list page kind timed per owner;
// then GET /api/users with the users table grown to each size. Prints a table per engine and writes
// bench/results/scale-<timestamp>.json. See docs/performance.md, "Lists at scale".

const RESULTS_DIR = join(__dirname, '..', 'results');
const log = (line: string) => process.stderr.write(`${line}\n`);
const seconds = (since: number) => (performance.now() - since) / 1000;

/**
 * A cursor deep into every owner's list, made as the service makes one (the seeded titles are three of 50
 * words; their created_at spans the past year): what is left after it is about 2 % of the list, so a page
 * there costs its depth unless it is a range of the index.
 */
function deepCursor(sort: 'title' | '-createdAt'): string {
  if (sort === 'title')
    return encodeCursor(
      [
        { field: 'title', descending: false },
        { field: 'id', descending: false },
      ],
      { title: 'zinnia', id: '00000000-0000-7000-8000-000000000000' },
    );
  const early = new Date(Date.now() - 357 * 86_400_000);
  return encodeCursor(
    [
      { field: 'createdAt', descending: true },
      { field: 'id', descending: true },
    ],
    { createdAt: early, id: 'ffffffff-ffff-7fff-bfff-ffffffffffff' },
  );
}

function noteKinds(pageSize: number): PageKind[] {
  const base = `/api/notes?limit=${pageSize}`;
  return [
    { id: 'first', title: 'first page, default order', path: base },
    { id: 'cursor-3', title: 'third page by cursor, newest first', path: base, follow: 2 },
    { id: 'title', title: 'first page sorted by title', path: `${base}&sort=title` },
    { id: 'title-cursor-3', title: 'third page by cursor, by title', path: `${base}&sort=title`, follow: 2 },
    { id: 'pinned', title: 'filtered pinned=true, newest first', path: `${base}&pinned=true` },
    { id: 'title-desc', title: 'first page sorted by -title', path: `${base}&sort=-title` },
    {
      id: 'deep',
      title: 'a page by cursor 98 % deep, newest first',
      path: `${base}&cursor=${deepCursor('-createdAt')}`,
    },
    {
      id: 'title-deep',
      title: 'a page by cursor 98 % deep, by title',
      path: `${base}&sort=title&cursor=${deepCursor('title')}`,
    },
    { id: 'count', title: 'first page with ?count=true', path: `${base}&count=true`, optional: true },
    ...searchKinds(base),
  ];
}

/** The searches (`?q=`, over title and body): a term in every row, in one row of each owner, in none, in one row of 10^4, one too short for a trigram. */
function searchKinds(base: string): PageKind[] {
  const q = (term: string) => `${base}&q=${encodeURIComponent(term)}`;
  return [
    { id: 'q-every', title: `?q= in every row ('${SEARCH_TERMS.everyRow}')`, path: q(SEARCH_TERMS.everyRow) },
    { id: 'q-one', title: `?q= in one row ('${SEARCH_TERMS.oneRow}')`, path: q(SEARCH_TERMS.oneRow) },
    { id: 'q-none', title: `?q= in no row ('${SEARCH_TERMS.none}')`, path: q(SEARCH_TERMS.none) },
    { id: 'q-rare', title: `?q= in one row of 10^4 ('${SEARCH_TERMS.oneIn10k}')`, path: q(SEARCH_TERMS.oneIn10k) },
    { id: 'q-short', title: `?q= of 2 characters, in no row ('${SEARCH_TERMS.short}')`, path: q(SEARCH_TERMS.short) },
    {
      id: 'q-symbols',
      title: `?q= of symbols only, no trigram, in no row ('${SEARCH_TERMS.symbols}')`,
      path: q(SEARCH_TERMS.symbols),
    },
    { id: 'q-none-count', title: `?q= in no row, with ?count=true`, path: `${q(SEARCH_TERMS.none)}&count=true` },
    {
      id: 'q-rare-count',
      title: `?q= in one row of 10^4, with ?count=true`,
      path: `${q(SEARCH_TERMS.oneIn10k)}&count=true`,
    },
  ];
}

/** The kinds BENCH_SCALE_KINDS selects (every kind when it names none). */
function selected(kinds: readonly PageKind[], settings: ScaleSettings): PageKind[] {
  return settings.kinds.length === 0
    ? [...kinds]
    : kinds.filter((kind) => settings.kinds.some((prefix) => kind.id.startsWith(prefix)));
}

function userKinds(pageSize: number): PageKind[] {
  const base = `/api/users?limit=${pageSize}`;
  return [
    { id: 'users-first', title: 'first page (oldest first)', path: base },
    { id: 'users-cursor-3', title: 'third page by cursor', path: base, follow: 2 },
    { id: 'users-offset-3', title: 'third page by offset', path: `${base}&offset=${2 * pageSize}` },
    { id: 'users-count', title: 'first page with ?count=true', path: `${base}&count=true`, optional: true },
  ];
}

/** The engine's URL: SQLite in a temp file (not :memory:), the others from TEST_POSTGRES_URL / TEST_MYSQL_URL. */
function databaseUrl(engine: ScaleEngine, scratch: string): string {
  if (engine === 'sqlite') return `sqlite:${join(scratch, 'scale.sqlite')}`;
  const name = engine === 'postgres' ? 'TEST_POSTGRES_URL' : 'TEST_MYSQL_URL';
  const url = process.env[name];
  if (!url) throw new Error(`${engine}: ${name} is not set (make bench-scale starts throw-away servers and sets it)`);
  return url;
}

/** The bench's own connection: seeding, statistics and plans, beside the service's pool. */
function openConnection(engine: ScaleEngine, url: string): Sequelize {
  if (engine === 'sqlite')
    return new Sequelize({ dialect: 'sqlite', storage: url.slice('sqlite:'.length), logging: false });
  return new Sequelize(url, { logging: false, timezone: '+00:00', pool: { max: 1 } });
}

async function engineVersion(sequelize: Sequelize, engine: ScaleEngine): Promise<string> {
  const sql = {
    sqlite: 'SELECT sqlite_version() AS v',
    postgres: 'SHOW server_version',
    mysql: 'SELECT VERSION() AS v',
  }[engine];
  const row = (await sequelize.query(sql, { plain: true })) as Record<string, unknown> | null;
  return String(Object.values(row ?? {})[0] ?? '?');
}

async function startApp(url: string, settings: ScaleSettings, logger: CapturingLogger): Promise<RunningService> {
  const config = loadConfig({
    NODE_ENV: 'production',
    JWT_SECRET: randomBytes(48).toString('base64url'),
    REFRESH_TOKEN_SECRET: randomBytes(48).toString('base64url'),
    DATABASE_URL: url,
    DATABASE_TIMEOUT: settings.databaseTimeout,
    USER_STORE: 'database',
    LOG_LEVEL: 'warn',
    COOKIE_SECURE: 'false',
    USER_RATE_LIMIT_MAX: '1000000000', // one owner's requests, back to back: measured, not budgeted
    ...(settings.searchScanLimit ? { LIST_SEARCH_SCAN_LIMIT: settings.searchScanLimit } : {}),
  });
  return startService(config, logger.logger, {
    modules: [...registeredModules, benchNotesModule],
    port: 0,
    host: '127.0.0.1',
  });
}

/** A user in the service's store with this role, and a bearer token for them. */
async function signIn(
  service: RunningService,
  email: string,
  role: string,
): Promise<{ id: string; authorization: string }> {
  const user = await service.services.users.create({ email, passwordHash: 'not-a-password-hash', role, name: null });
  return { id: user.id, authorization: `Bearer ${service.services.tokens.signAccessToken(user)}` };
}

interface Context {
  engine: ScaleEngine;
  sequelize: Sequelize;
  baseUrl: string;
  settings: ScaleSettings;
  logger: CapturingLogger;
}

/** Measures the kinds for each (size, token), kind by kind, smallest size first. */
async function measureRows(
  ctx: Context,
  kinds: readonly PageKind[],
  tokens: readonly [number, string][],
  label: string,
): Promise<KindRow[]> {
  const rows: KindRow[] = [];
  for (const kind of kinds) {
    const bySize: Record<number, Outcome> = {};
    for (const [size, token] of tokens) {
      const started = performance.now();
      bySize[size] = await measureKind(ctx.baseUrl, kind, token, ctx.settings);
      log(
        `${ctx.engine}: ${label} ${kind.id} @ ${size}: ${JSON.stringify(bySize[size])} (${seconds(started).toFixed(1)} s)`,
      );
    }
    rows.push({ id: kind.id, title: kind.title, bySize });
  }
  return rows;
}

/**
 * The seed reads back through the service as its own rows would: a full first page of valid ids
 * (isId, as the store checks them) in the default order, newest first.
 */
async function checkSeeded(ctx: Context, owners: readonly [number, string][]): Promise<void> {
  for (const [size, token] of owners) {
    const answer = await get(ctx.baseUrl, `/api/notes?limit=${ctx.settings.pageSize}`, token);
    const items = (answer.body.data?.items ?? []) as { id?: unknown; createdAt?: string }[];
    const ordered = items.every(
      (item, index) => index === 0 || String(items[index - 1]!.createdAt) >= String(item.createdAt),
    );
    if (
      answer.status !== 200 ||
      items.length !== Math.min(size, ctx.settings.pageSize) ||
      !items.every((item) => isId(item.id)) ||
      !ordered
    ) {
      throw new Error(
        `${ctx.engine}: the seeded notes of the ${size}-row owner do not read back as the service's (${answer.status}, ${JSON.stringify(items.slice(0, 2))})`,
      );
    }
  }
}

/** The statements one request of `kind` makes the store run on `table`, with their plans. */
async function planOf(
  ctx: Context,
  kind: PageKind,
  token: string,
  table: string,
): Promise<EngineReport['plans'][number] | undefined> {
  const resolved = await resolvePath(ctx.baseUrl, kind, token);
  if (!('path' in resolved)) return undefined;
  const logged = await ctx.logger.capture(() => get(ctx.baseUrl, resolved.path, token));
  const statements = [];
  for (const sql of listStatements(logged, table))
    statements.push({ sql, plan: await explain(ctx.sequelize, ctx.engine, sql) });
  return statements.length > 0 ? { kind: kind.title, statements } : undefined; // e.g. a 422: nothing ran
}

async function benchEngine(engine: ScaleEngine, settings: ScaleSettings, scratch: string): Promise<EngineReport> {
  const url = databaseUrl(engine, scratch);
  const logger = new CapturingLogger();
  const service = await startApp(url, settings, logger); // runs the migrations: the seed lands in indexed tables
  const sequelize = openConnection(engine, url);
  try {
    const [held] = (await sequelize.query('SELECT COUNT(*) AS n FROM notes', { plain: false })) as [
      { n: number | string }[],
      unknown,
    ];
    if (Number(held[0]?.n) > 0)
      throw new Error(`${engine}: the notes table already holds rows: point the bench at an empty database`);
    const ctx: Context = { engine, sequelize, baseUrl: `http://127.0.0.1:${service.port}`, settings, logger };
    const version = await engineVersion(sequelize, engine);
    log(`${engine}: ${version}, service on ${ctx.baseUrl}`);
    const { sizes } = settings;
    const admin = (await signIn(service, 'scale-admin@bench.test', ADMIN_ROLE)).authorization;
    const owners: [number, string][] = [];
    const seedingSeconds: EngineReport['seedingSeconds'] = { notes: {}, users: {} };
    // As a bulk load is done: the list indexes dropped, the rows written, the indexes built once over them
    // (the owner's newest-first index, which the table is created with, stays). Built before timing anything.
    const listIndexes = listIndexColumns(benchNotes);
    await removeListIndexes(sequelize.getQueryInterface(), 'notes', listIndexes);
    for (const searchIndex of SEARCH_INDEX_SHAPES)
      await removeSearchIndex(sequelize.getQueryInterface(), 'notes', BENCH_SEARCH_SHADOWS, { searchIndex });
    for (const [index, size] of sizes.entries()) {
      const owner = await signIn(service, `scale-owner-${size}@bench.test`, 'user');
      const started = performance.now();
      await seedNotes(sequelize, engine, 'notes', owner.id, size, index);
      seedingSeconds.notes[size] = seconds(started);
      log(`${engine}: seeded ${size} notes in ${seedingSeconds.notes[size]!.toFixed(1)} s`);
      owners.push([size, owner.authorization]);
    }
    const indexing = performance.now();
    // Memory for the builds, as a bulk load is given (PostgreSQL's 64 MB default builds a GIN index over 10^7 rows
    // in many passes); the bench's own connection, pool of one, is the session that builds.
    if (engine === 'postgres') await sequelize.query(`SET maintenance_work_mem = '1GB'`);
    await createListIndexes(sequelize.getQueryInterface(), 'notes', listIndexes);
    await createSearchIndex(sequelize.getQueryInterface(), 'notes', BENCH_SEARCH_SHADOWS, { perOwner: true });
    seedingSeconds.notes.indexes = seconds(indexing);
    log(
      `${engine}: built the ${listIndexes.length} list indexes and the search indexes over the seeded notes in ${seedingSeconds.notes.indexes.toFixed(1)} s`,
    );
    await analyze(sequelize, engine, 'notes');
    await checkSeeded(ctx, owners);
    const kinds = selected(noteKinds(settings.pageSize), settings);
    const notes = await measureRows(ctx, kinds, owners, 'notes');
    const total = sizes.reduce((sum, size) => sum + size, 0);
    const firstPage = noteKinds(settings.pageSize)[0]!;
    const adminOutcome = await measureKind(ctx.baseUrl, firstPage, admin, settings);
    log(`${engine}: notes admin @ ${total}: ${JSON.stringify(adminOutcome)}`);
    const plans: EngineReport['plans'] = [];
    if (settings.plans) {
      const biggest = owners.at(-1)![1];
      for (const kind of kinds) {
        const plan = await planOf(ctx, kind, biggest, 'notes');
        if (plan) plans.push(plan);
      }
      const adminPlan = await planOf(ctx, { ...firstPage, title: 'admin, every owner, first page' }, admin, 'notes');
      if (adminPlan) plans.push(adminPlan);
    }
    // The users table: the bench's own users, then seeded up to each size in turn, measured at each.
    await checkUserColumns(sequelize);
    const users: KindRow[] = [];
    let seeded = sizes.length + 1;
    const ukinds = selected(userKinds(settings.pageSize), settings);
    for (const size of ukinds.length > 0 ? sizes : []) {
      const started = performance.now();
      await seedUsers(sequelize, engine, seeded, size);
      await analyze(sequelize, engine, 'users');
      seedingSeconds.users[size] = seconds(started);
      seeded = size;
      log(`${engine}: users table at ${size} rows (${seedingSeconds.users[size]!.toFixed(1)} s)`);
      for (const row of await measureRows(ctx, ukinds, [[size, admin]], 'users')) {
        const existing = users.find((known) => known.id === row.id);
        if (existing) Object.assign(existing.bySize, row.bySize);
        else users.push(row);
      }
    }
    if (settings.plans) {
      for (const kind of ukinds) {
        const plan = await planOf(ctx, kind, admin, 'users');
        if (plan) plans.push({ ...plan, kind: `users: ${plan.kind}` });
      }
    }
    return {
      engine,
      version,
      sizes,
      seedingSeconds,
      notes,
      admin: { rows: total, outcome: adminOutcome },
      users,
      plans,
    };
  } finally {
    await sequelize.close();
    await service.stop();
  }
}

async function main(): Promise<void> {
  const settings = readScaleSettings();
  const scratch = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const started = new Date();
  const reports: EngineReport[] = [];
  const failures: string[] = [];
  try {
    for (const engine of settings.engines) {
      try {
        const report = await benchEngine(engine, settings, scratch);
        reports.push(report);
        process.stdout.write(`${renderEngine(report, settings.pageSize)}\n`);
      } catch (error) {
        failures.push(`${engine}: ${error instanceof Error ? error.message : String(error)}`);
        log(`${engine}: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      }
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `scale-${started.toISOString().replace(/[:.]/g, '-')}.json`);
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    node: process.version,
    platform: process.platform,
  };
  writeFileSync(
    file,
    `${JSON.stringify({ startedAt: started.toISOString(), settings, machine, engines: reports, failures }, null, 2)}\n`,
  );
  process.stdout.write(`\nreport: ${relative(process.cwd(), file)}\n`);
  // A non-2xx answer fails the run as an engine that could not run does (the figures are still written).
  const errors = reports.flatMap((report) =>
    [
      ...report.notes,
      ...report.users,
      { title: 'admin first page', bySize: { [report.admin.rows]: report.admin.outcome } },
    ].flatMap((row) =>
      Object.entries(row.bySize).flatMap(([size, outcome]) =>
        'error' in outcome ? [`${report.engine} ${row.title} @ ${size}: ${outcome.error}`] : [],
      ),
    ),
  );
  if (failures.length > 0 || errors.length > 0) {
    process.stdout.write(`failed: ${[...failures, ...errors].join('; ')}\n`);
    process.exitCode = 1;
  }
}

void main();
