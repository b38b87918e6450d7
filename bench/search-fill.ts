import { performance } from 'node:perf_hooks';
import { Sequelize } from 'sequelize';
import { createResourceTable } from '../src/stores/sql/migrations/resource-columns';
import { addSearchColumn } from '../src/stores/sql/migrations/field-changes';
import { foldForSearch } from '../src/stores/kit/shadows';

// A searched field added to a populated table: the `<column>_search` shadow filled by addSearchColumn
// (batches of 1,000, one statement each, committed as they go), measured on FILL_ROWS rows (default 10^6)
// on each database named, against the one-UPDATE-per-row fill it replaced, measured on FILL_BEFORE_ROWS
// rows (default 10^5) in one transaction as the migration ran it then.
//
//   FILL_URLS="$TEST_POSTGRES_URL $TEST_MYSQL_URL" npx tsx bench/search-fill.ts
//
// Prints, per engine: rows, time, rows per second, statements sent, the slowest statement (how long a
// batch holds its row locks). The table is made and dropped in the database given.

const ROWS = Number(process.env.FILL_ROWS ?? 1_000_000);
const BEFORE_ROWS = Number(process.env.FILL_BEFORE_ROWS ?? 100_000);
const TABLE = 'bench_search_fill';

async function populate(sequelize: Sequelize, rows: number): Promise<void> {
  const queryInterface = sequelize.getQueryInterface();
  await queryInterface.dropTable(TABLE).catch(() => undefined);
  await createResourceTable(queryInterface, TABLE, (c) => c.string('title', { maxLength: 200, optional: true }));
  const generated =
    sequelize.getDialect() === 'postgres'
      ? `SELECT lpad(g::text, 36, '0'), 'bench', 'Note ' || g || ' École', now(), now() FROM generate_series(1, ${rows}) AS g`
      : `SELECT LPAD(seq, 36, '0'), 'bench', CONCAT('Note ', seq, ' École'), NOW(3), NOW(3) FROM seq_1_to_${rows}`;
  await sequelize.query(
    `INSERT INTO ${queryInterface.quoteIdentifier(TABLE)} (id, owner_id, title, created_at, updated_at) ${generated}`,
  );
}

/** Every statement's duration, as the fill sends them. */
function timed(sequelize: Sequelize): { statements: number[] } {
  const recorded = { statements: [] as number[] };
  const query = sequelize.query.bind(sequelize);
  sequelize.query = (async (...args: Parameters<Sequelize['query']>) => {
    const start = performance.now();
    try {
      return await query(...args);
    } finally {
      recorded.statements.push(performance.now() - start);
    }
  }) as Sequelize['query'];
  return recorded;
}

/** The fill as it was: one UPDATE per row, inside the migration's one transaction (PostgreSQL; MariaDB's DDL commits anyway). */
async function perRowFill(sequelize: Sequelize): Promise<void> {
  const queryInterface = sequelize.getQueryInterface();
  await queryInterface.addColumn(TABLE, 'title_search', { type: 'VARCHAR(200)', allowNull: true });
  await sequelize.transaction(async (transaction) => {
    let after = '';
    for (;;) {
      const [rows] = (await sequelize.query(
        `SELECT id, title FROM ${queryInterface.quoteIdentifier(TABLE)} WHERE title_search IS NULL AND title IS NOT NULL AND id > :after ORDER BY id LIMIT 500`,
        { replacements: { after }, transaction },
      )) as [{ id: string; title: string }[], unknown];
      for (const row of rows)
        await queryInterface.bulkUpdate(
          TABLE,
          { title_search: foldForSearch(row.title) },
          { id: row.id, title: row.title, title_search: null },
          { transaction },
        );
      if (rows.length < 500) return;
      after = rows[rows.length - 1]!.id;
    }
  });
}

function report(engine: string, how: string, rows: number, ms: number, statements: number[]): void {
  const slowest = Math.max(...statements);
  console.log(
    `${engine.padEnd(9)} ${how.padEnd(26)} rows ${String(rows).padStart(8)}  ${(ms / 1000).toFixed(1).padStart(6)} s  ${Math.round(
      rows / (ms / 1000),
    )
      .toString()
      .padStart(7)} rows/s  statements ${String(statements.length).padStart(7)}  slowest ${slowest.toFixed(0)} ms`,
  );
}

async function measure(url: string): Promise<void> {
  const sequelize = new Sequelize(url, { logging: false, pool: { max: 1 } });
  const engine = sequelize.getDialect() === 'postgres' ? 'postgres' : 'mariadb';
  try {
    if (BEFORE_ROWS > 0) {
      await populate(sequelize, BEFORE_ROWS);
      const recorded = timed(sequelize);
      const start = performance.now();
      await perRowFill(sequelize);
      report(engine, 'per row (before)', BEFORE_ROWS, performance.now() - start, recorded.statements);
      sequelize.query = Sequelize.prototype.query.bind(sequelize);
    }
    await populate(sequelize, ROWS);
    const recorded = timed(sequelize);
    const start = performance.now();
    await addSearchColumn(sequelize.getQueryInterface(), TABLE, 'title', { kind: 'string', maxLength: 200 });
    report(engine, 'batches of 1,000 (after)', ROWS, performance.now() - start, recorded.statements);
    sequelize.query = Sequelize.prototype.query.bind(sequelize);
    const [[left]] = (await sequelize.query(
      `SELECT COUNT(*) AS n FROM ${sequelize.getQueryInterface().quoteIdentifier(TABLE)} WHERE title_search IS NULL`,
    )) as [{ n: number }[], unknown];
    if (Number(left!.n) !== 0) throw new Error(`${engine}: ${left!.n} rows left unfilled`);
  } finally {
    await sequelize
      .getQueryInterface()
      .dropTable(TABLE)
      .catch(() => undefined);
    await sequelize.close();
  }
}

async function main(): Promise<void> {
  const urls = (
    process.env.FILL_URLS ?? [process.env.TEST_POSTGRES_URL, process.env.TEST_MYSQL_URL].filter(Boolean).join(' ')
  )
    .split(/\s+/)
    .filter(Boolean);
  if (urls.length === 0)
    throw new Error(
      'FILL_URLS (or TEST_POSTGRES_URL / TEST_MYSQL_URL): the PostgreSQL and MariaDB databases to measure on',
    );
  for (const url of urls) await measure(url);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
