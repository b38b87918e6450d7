import request from 'supertest';
import type { Sequelize } from 'sequelize';
import { userStore } from '../../src/auth/stores/definitions';
import { DriverStatements } from '../../src/stores/sql/driver-statements';
import { SqlDatabase } from '../../src/stores/sql/sql-database';
import { buildAuthApp, login } from '../support/auth-helpers';
import { testEngines } from '../support/engines';
import type { TestApp } from '../support/test-app';

// The hot-path reads (login, refresh, the guards' user lookups) go through statements the driver keeps per
// connection (driver-statements.ts). They must outlive what happens to the server under them: a column's type
// changed by a migration after they were warmed (PostgreSQL: "cached plan must not change result type"),
// a server or pooler that forgets the statements of a connection (PgBouncer in transaction mode, DISCARD
// ALL; MySQL/MariaDB: "Unknown prepared statement handler", 1243), and on SQLite a schema change that makes
// concurrent reads of one statement fail together (each finalizing it: SQLITE_MISUSE, thrown outside any request).

const PASSWORD = 'violet kettle marching ninety';
const engines = testEngines().filter((target) => ['sqlite', 'postgres', 'mysql'].includes(target.engine));

/** The SQL texts the direct reads ran (MySQL: the statements to make the server forget). */
const texts = new Set<string>();
const realRows = DriverStatements.prototype.rows;
jest.spyOn(DriverStatements.prototype, 'rows').mockImplementation(function (
  this: DriverStatements,
  sql: string,
  params: readonly unknown[],
) {
  texts.add(sql);
  return realRows.call(this, sql, params);
} as DriverStatements['rows']);

/** The app's SqlDatabase (services.database is wrapped for metrics): its Sequelize runs the DDL and holds the pool. */
const opened: SqlDatabase[] = [];
const realConnect = SqlDatabase.prototype.connect;
jest.spyOn(SqlDatabase.prototype, 'connect').mockImplementation(function (this: SqlDatabase) {
  opened.push(this);
  return realConnect.call(this);
});

interface PooledConnections {
  getConnection(options: { type: 'read' }): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void> | void;
}

/** Runs `work` on every connection of the pool at once (10, Sequelize's maximum here): the warmed ones included. */
async function onEveryPooledConnection(
  sequelize: Sequelize,
  work: (connection: never) => Promise<unknown>,
): Promise<void> {
  const pool = sequelize.connectionManager as unknown as PooledConnections;
  const held = await Promise.all(Array.from({ length: 10 }, () => pool.getConnection({ type: 'read' })));
  try {
    for (const connection of held) await work(connection as never);
  } finally {
    for (const connection of held) await pool.releaseConnection(connection);
  }
}

describe.each(engines)('direct reads outlive the server under them: $label', (target) => {
  const run = target.skipReason ? it.skip : it;
  if (target.skipReason) it.skip(`skipped: ${target.skipReason}`, () => undefined);
  let app: TestApp;
  let stop: (() => Promise<void>) | undefined;
  let sequelize: Sequelize;
  let http: ReturnType<typeof request>;
  let email: string;
  let id: string;

  beforeAll(async () => {
    if (target.skipReason) return;
    const started = await target.start();
    stop = started.stop;
    app = await buildAuthApp({ DATABASE_URL: started.url, USER_STORE: 'database', AUTH_REGISTRATION: 'true' });
    sequelize = opened.at(-1)!.sequelize;
    http = request(app.app.callback());
    email = `schema-${target.engine}-${Date.now()}@example.com`;
    id = (await http.post('/api/auth/register').send({ name: 'Schema Change', email, password: PASSWORD }).expect(201))
      .body.data.id;
  }, 240_000);
  afterAll(async () => {
    if (target.skipReason) return;
    if (target.engine === 'postgres') await sequelize.query('ALTER TABLE users ALTER COLUMN name TYPE varchar(255)');
    if (target.engine === 'mysql') await sequelize.query('ALTER TABLE users MODIFY name varchar(255) NULL');
    await app.close();
    await stop?.();
  }, 60_000);

  const users = () => app.services.database.store(userStore);
  /** Many reads at once, so that every pooled connection holds the statements. */
  const readsAtOnce = () =>
    Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? users().findById(id) : users().findByEmail(email))));
  const stillWorks = async () => {
    for (const user of await readsAtOnce()) expect(user).toMatchObject({ id, email });
    const session = await login(app, { email, password: PASSWORD });
    const refreshed = await http
      .post('/api/auth/refresh')
      .set('Cookie', `refreshToken=${session.refreshToken}`)
      .expect(200);
    expect(refreshed.body.data.accessToken).toEqual(expect.any(String));
  };

  if (target.engine === 'postgres') {
    run(
      'PostgreSQL: a column type changed after warm reads (ALTER ... TYPE varchar(300)) leaves login, refresh and user reads working',
      async () => {
        await stillWorks();
        await sequelize.query('ALTER TABLE users ALTER COLUMN name TYPE varchar(300)');
        await stillWorks();
      },
    );

    run(
      'PostgreSQL: connections whose prepared statements were dropped (DISCARD ALL, as a transaction-mode pooler hands out) still read',
      async () => {
        await stillWorks();
        await onEveryPooledConnection(sequelize, (client: { query(sql: string): Promise<unknown> }) =>
          client.query('DISCARD ALL'),
        );
        await stillWorks();
      },
    );
  }

  if (target.engine === 'mysql') {
    run(
      'MySQL/MariaDB: a column type changed after warm reads leaves login, refresh and user reads working',
      async () => {
        await stillWorks();
        await sequelize.query('ALTER TABLE users MODIFY name varchar(300) NULL');
        await stillWorks();
      },
    );

    run(
      'MySQL/MariaDB: statements the server forgot (1243, unknown handler) are prepared again and the read retried',
      async () => {
        texts.clear(); // this engine's statements only
        await stillWorks();
        expect(texts.size).toBeGreaterThan(0);
        // Each pooled connection's cached statements closed on the server, mysql2's cache left as it was: what a
        // proxy or pooler that resets server connections leaves behind.
        await onEveryPooledConnection(sequelize, async (connection: MysqlCache) => {
          for (const sql of texts)
            await new Promise<void>((resolve, reject) =>
              connection.prepare(sql, (error, statement) => (error ? reject(error) : resolve(void statement.close()))),
            );
        });
        await stillWorks();
      },
    );
  }

  if (target.engine === 'sqlite') {
    run(
      'SQLite: reads of one statement failing together (a column renamed under them) finalize it once, after the last; reads work again after',
      async () => {
        await stillWorks();
        const unexpected: unknown[] = [];
        const onError = (error: unknown) => unexpected.push(error);
        process.on('uncaughtException', onError);
        try {
          await sequelize.query('ALTER TABLE users RENAME COLUMN name TO full_name');
          const failed = await Promise.allSettled(Array.from({ length: 6 }, () => users().findById(id)));
          expect(failed.every((result) => result.status === 'rejected')).toBe(true);
          await sequelize.query('ALTER TABLE users RENAME COLUMN full_name TO name');
          await new Promise((resolve) => setTimeout(resolve, 50)); // any late finalize error would surface here
          await stillWorks();
        } finally {
          process.off('uncaughtException', onError);
        }
        expect(unexpected).toEqual([]);
      },
    );
  }
});

interface MysqlCache {
  prepare(sql: string, callback: (error: Error | null, statement: { close(): void }) => void): void;
}
