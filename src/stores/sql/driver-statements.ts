import { setTimeout as sleep } from 'node:timers/promises';
import { BaseError, DatabaseError, QueryTypes, type Sequelize } from 'sequelize';
import type { SqlEngine } from './connection-options';
import { SqliteStatements } from './sqlite-statements';

/** The parts of the drivers' connections used here (pg Client, mysql2 Connection). */
interface PgClient {
  query(config: { text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}
interface MysqlConnection {
  execute(sql: string, values: readonly unknown[], callback: (error: Error | null, rows: unknown) => void): unknown;
  /** mysql2: forgets the statement cached for this SQL (closing it on the server): the next execute prepares it. */
  unprepare(sql: string): unknown;
}
interface ConnectionManager {
  getConnection(options: { type: 'read' | 'write'; useMaster?: boolean }): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<void> | void;
}

/**
 * MySQL/MariaDB errors that say the server no longer has the statement mysql2 cached for the connection, or
 * cannot run it as prepared: ER_NEED_REPREPARE (1615: the tables changed under it and the server's own
 * re-preparation gave up) and ER_UNKNOWN_STMT_HANDLER (1243: the server forgot the handle — a proxy or
 * pooler that resets connections, a server-side limit). Prepared once more, the statement runs.
 */
const STALE_MYSQL_STATEMENT = new Set([1615, 1243]);

/**
 * SQLite: tries of a statement that finds the database locked (SQLITE_BUSY: another connection held the write
 * lock past sqlite3's busy wait), 100 ms apart and growing, as Sequelize's default `retry` gives its own.
 */
const SQLITE_BUSY_TRIES = 5;

/**
 * Statements of the hot paths (a one-row read, a one-row insert) straight through the driver on Sequelize's
 * own connections, prepared once: Sequelize's query pipeline (query building, replacement escaping, a
 * `new Error()` per query for its stack, result formatting) costs several times the driver's call
 * (docs/performance.md). SQL is written with `?` placeholders, outside any transaction; a Date parameter is
 * written as Sequelize writes it on each engine.
 *  - SQLite: a statement prepared on Sequelize's own connection (sqlite-statements.ts), dates as text, tried
 *    again while the database is locked, as Sequelize's own statements are.
 *  - PostgreSQL: pg's unnamed statement (parse, bind, execute in one round trip), planned afresh each time:
 *    no cached plan to go stale when a column's type changes ("cached plan must not change result type",
 *    0A000), and no per-connection state for a transaction-mode pooler (PgBouncer) to lose (docs/databases.md).
 *  - MySQL/MariaDB: the binary protocol's prepared statement (`execute`, cached by mysql2 per connection),
 *    as Sequelize itself uses for bound parameters, with its connection's type casting and time zone (UTC);
 *    prepared once more and retried once when the server says it went stale (1615, 1243).
 *  - SQL Server: through Sequelize (tedious has no comparable one-call prepared statement), dates as UTC text.
 * A driver's error comes wrapped as Sequelize wraps it; the store's `run` translates it like any other (sql-errors.ts).
 */
export class DriverStatements {
  private readonly sqliteStatements: SqliteStatements;
  /** PostgreSQL: each statement's `$n` text, made once per SQL text rather than on every call. */
  private readonly pgTexts = new Map<string, string>();

  constructor(
    private readonly sequelize: Sequelize,
    readonly engine: SqlEngine,
  ) {
    // Sequelize's one connection for statements outside transactions (the same one its own queries use).
    this.sqliteStatements = new SqliteStatements(() => this.connections.getConnection({ type: 'write' }));
  }

  private get connections(): ConnectionManager {
    return this.sequelize.connectionManager as unknown as ConnectionManager;
  }

  /** The rows of a read. */
  rows(sql: string, params: readonly unknown[]): Promise<unknown[]> {
    return this.wrapped(() => this.call(sql, params, 'read'));
  }

  /** Runs a statement that returns no rows. */
  async execute(sql: string, params: readonly unknown[]): Promise<void> {
    await this.wrapped(() => this.call(sql, params, 'write'));
  }

  /** Finalizes the prepared SQLite statements (once no call holds them): else the database could not close. */
  close(): Promise<void> {
    return this.sqliteStatements.close();
  }

  private async wrapped<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      // Wrapped as Sequelize wraps it (the driver's error as `original`): the same error translation, and log
      // lines that name the driver's code without its message, whichever path the statement took.
      // (Told by shape: a native driver's errors come from another realm's Error under a test runner.)
      const driverError = typeof (error as { message?: unknown } | null)?.message === 'string';
      throw error instanceof BaseError || !driverError
        ? error
        : new DatabaseError(error as ConstructorParameters<typeof DatabaseError>[0]);
    }
  }

  private async call(sql: string, params: readonly unknown[], kind: 'read' | 'write'): Promise<unknown[]> {
    switch (this.engine) {
      case 'sqlite': {
        const values = params.map(utcDateText);
        return sqliteRetrying(async () => {
          if (kind === 'read') return this.sqliteStatements.all(sql, values);
          await this.sqliteStatements.run(sql, values);
          return [];
        });
      }
      case 'postgres':
        return this.pooled(
          kind,
          async (client: PgClient) => (await client.query({ text: this.pgText(sql), values: params })).rows,
        );
      case 'mysql':
        return this.pooled(kind, async (connection: MysqlConnection) => {
          try {
            return await mysqlExecute(connection, sql, params);
          } catch (error) {
            if (!STALE_MYSQL_STATEMENT.has(Number((error as { errno?: unknown }).errno))) throw error;
            connection.unprepare(sql);
            return mysqlExecute(connection, sql, params); // once: a second failure is the store's to translate
          }
        });
      default: {
        const replacements = params.map(utcDateText); // escaped in the process's time zone otherwise
        if (kind === 'read')
          return this.sequelize.query(sql, { replacements, type: QueryTypes.SELECT, logging: false });
        await this.sequelize.query(sql, { replacements, type: QueryTypes.RAW, logging: false });
        return [];
      }
    }
  }

  private pgText(sql: string): string {
    let text = this.pgTexts.get(sql);
    if (text === undefined) {
      text = numbered(sql);
      this.pgTexts.set(sql, text);
    }
    return text;
  }

  private async pooled<Connection, T>(
    kind: 'read' | 'write',
    work: (connection: Connection) => Promise<T>,
  ): Promise<T> {
    const connection = (await this.connections.getConnection({ type: kind })) as Connection;
    try {
      return await work(connection);
    } finally {
      await this.connections.releaseConnection(connection);
    }
  }
}

/** A statement executed on a mysql2 connection (prepared on first use and cached by mysql2): its rows, if any. */
function mysqlExecute(connection: MysqlConnection, sql: string, params: readonly unknown[]): Promise<unknown[]> {
  return new Promise<unknown[]>((resolve, reject) => {
    connection.execute(sql, params, (error, rows) =>
      error ? reject(error) : resolve(Array.isArray(rows) ? rows : []),
    );
  });
}

/**
 * A date as Sequelize writes it on SQLite and SQL Server: text in UTC to the millisecond with the offset
 * (`2026-01-02 03:04:05.678 +00:00`, the service's time zone). On SQLite, which has no date type, it then
 * compares, as text, with the dates Sequelize writes and binds. Any other value as it is.
 */
function utcDateText(value: unknown): unknown {
  return value instanceof Date ? `${value.toISOString().slice(0, 23).replace('T', ' ')} +00:00` : value;
}

/** `call`, tried again while SQLite answers SQLITE_BUSY, up to SQLITE_BUSY_TRIES times in all. */
async function sqliteRetrying<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= SQLITE_BUSY_TRIES || (error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error;
      await sleep(100 * 1.1 ** (attempt - 1));
    }
  }
}

/** `?` placeholders as PostgreSQL's `$1, $2, …` (the statements here hold no `?` in literals). */
function numbered(sql: string): string {
  let index = 0;
  return sql.replace(/\?/g, () => `$${(index += 1)}`);
}
