import { createHash } from 'node:crypto';
import { BaseError, DatabaseError, QueryTypes, type Sequelize } from 'sequelize';
import type { SqlEngine } from './connection-options';

/** The parts of the drivers' connections used here (sqlite3 Database, pg Client, mysql2 Connection). */
interface SqliteStatement {
  all(params: readonly unknown[], callback: (error: Error | null, rows: unknown[]) => void): void;
  finalize(callback?: () => void): void;
}
interface SqliteConnection {
  prepare(sql: string, callback?: (error: Error | null) => void): SqliteStatement;
}
interface PgClient {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}
interface MysqlConnection {
  execute(sql: string, values: readonly unknown[], callback: (error: Error | null, rows: unknown) => void): unknown;
}
interface ConnectionManager {
  getConnection(options: { type: 'read' | 'write'; useMaster?: boolean }): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void> | void;
}

/**
 * One-row reads on the hot paths (the refresh-token lookup, a user by id or email) straight through the
 * driver, with the statement prepared once: Sequelize's query pipeline (query building, replacement
 * escaping, a `new Error()` per query for its stack, result formatting) costs ~185 µs of CPU per lookup
 * on SQLite, a prepared statement's ~37 µs (docs/performance.md). SQL is written with `?`
 * placeholders; the result is the driver's row, as a raw Sequelize query gives it.
 *  - SQLite: a statement prepared on Sequelize's own connection, kept until `close`.
 *  - PostgreSQL: a named prepared statement (pg prepares it once per connection of the pool).
 *  - MySQL/MariaDB: the binary protocol's prepared statement (`execute`, cached by mysql2 per connection),
 *    as Sequelize itself uses for bound parameters, with its connection's type casting and time zone.
 *  - SQL Server: through Sequelize (tedious has no comparable one-call prepared read).
 * A driver's error comes wrapped as Sequelize wraps it; the store's `run` translates it like any other (sql-errors.ts).
 */
export class DirectReads {
  private statements = new Map<string, Promise<SqliteStatement>>();
  private statementsOf: unknown;
  /** PostgreSQL: each statement's name and `$n` text, made once per SQL text rather than on every read. */
  private readonly pgStatements = new Map<string, { name: string; text: string }>();

  constructor(
    private readonly sequelize: Sequelize,
    private readonly engine: SqlEngine,
  ) {}

  private get connections(): ConnectionManager {
    return this.sequelize.connectionManager as unknown as ConnectionManager;
  }

  async selectOne<Row>(sql: string, params: readonly unknown[]): Promise<Row | null> {
    try {
      return await this.select<Row>(sql, params);
    } catch (error) {
      // Wrapped as Sequelize wraps it (the driver's error as `original`): the same error translation, and log
      // lines that name the driver's code without its message, whichever path the read took.
      // (Told by shape: a native driver's errors come from another realm's Error under a test runner.)
      const driverError = typeof (error as { message?: unknown } | null)?.message === 'string';
      throw error instanceof BaseError || !driverError ? error : new DatabaseError(error as ConstructorParameters<typeof DatabaseError>[0]);
    }
  }

  private async select<Row>(sql: string, params: readonly unknown[]): Promise<Row | null> {
    switch (this.engine) {
      case 'sqlite':
        return this.sqlite<Row>(sql, params);
      case 'postgres':
        return this.pooled(async (client: PgClient) => ((await client.query({ ...this.pgStatement(sql), values: params })).rows[0] as Row | undefined) ?? null);
      case 'mysql':
        return this.pooled(
          (connection: MysqlConnection) =>
            new Promise<Row | null>((resolve, reject) => {
              connection.execute(sql, params, (error, rows) => (error ? reject(error) : resolve((rows as Row[])[0] ?? null)));
            }),
        );
      default:
        return ((await this.sequelize.query(sql, { replacements: [...params], type: QueryTypes.SELECT, plain: true, logging: false })) as Row | null) ?? null;
    }
  }

  /** Finalizes the prepared SQLite statements, which would otherwise keep the database from closing. */
  async close(): Promise<void> {
    const statements = [...this.statements.values()];
    this.statements = new Map();
    await Promise.all(statements.map((prepared) => prepared.then((statement) => new Promise<void>((resolve) => statement.finalize(() => resolve())), () => undefined)));
  }

  private async sqlite<Row>(sql: string, params: readonly unknown[]): Promise<Row | null> {
    // Sequelize's one connection for statements outside transactions (the same one its own queries use).
    const connection = (await this.connections.getConnection({ type: 'read' })) as SqliteConnection;
    if (this.statementsOf !== connection) {
      await this.close(); // a new connection (after a reconnect): the old statements belong to the old one
      this.statementsOf = connection;
    }
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = prepare(connection, sql);
      this.statements.set(sql, prepared);
    }
    try {
      const statement = await prepared;
      // `all`, not `get`: `get` leaves the statement open after its first row, holding SQLite's shared lock,
      // so every other connection's write (a transaction, another process) would fail with SQLITE_BUSY.
      // `all` steps to the end and resets the statement; a lookup by key has one row at most.
      return await new Promise<Row | null>((resolve, reject) => {
        statement.all(params, (error, rows) => (error ? reject(error) : resolve((rows[0] as Row | undefined) ?? null)));
      });
    } catch (error) {
      // Not prepared (no such table yet), or failed running: prepared again next time, the error is the store's.
      if (this.statements.get(sql) === prepared) this.statements.delete(sql);
      prepared.then((statement) => statement.finalize(), () => undefined);
      throw error;
    }
  }

  private pgStatement(sql: string): { name: string; text: string } {
    let statement = this.pgStatements.get(sql);
    if (!statement) {
      statement = { name: statementName(sql), text: numbered(sql) };
      this.pgStatements.set(sql, statement);
    }
    return statement;
  }

  private async pooled<Connection, T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    const connection = (await this.connections.getConnection({ type: 'read' })) as Connection;
    try {
      return await work(connection);
    } finally {
      await this.connections.releaseConnection(connection);
    }
  }
}

/** A statement prepared on the connection: resolved once SQLite has compiled it, rejected with its error. */
function prepare(connection: SqliteConnection, sql: string): Promise<SqliteStatement> {
  return new Promise((resolve, reject) => {
    const statement = connection.prepare(sql, (error) => (error ? reject(error) : resolve(statement)));
  });
}

/** `?` placeholders as PostgreSQL's `$1, $2, …` (the statements here hold no `?` in literals). */
function numbered(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${(index += 1)}`);
}

/** A name per statement text, the same on every replica: pg keeps named statements per connection. */
function statementName(sql: string): string {
  return `direct_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
}
