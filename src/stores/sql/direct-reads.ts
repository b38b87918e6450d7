import { BaseError, DatabaseError, QueryTypes, type Sequelize } from 'sequelize';
import type { SqlEngine } from './connection-options';
import { ReadBatches } from './read-batches';

/** A one-row lookup by one key column: the refresh token by its digest, a user by id or email. */
export interface KeyedRead {
  /** `SELECT … FROM table`, without WHERE. */
  select: string;
  /** The key column, quoted. */
  column: string;
  /**
   * The row's property holding the key (its alias in `select`): how SQLite's batches tell the rows apart, so
   * the column compares as written (no case-folding collation) and the key comes normalised as it is stored.
   */
  field: string;
  /** The key's placeholder where the engine needs a cast (SQL Server: `CAST(? AS CHAR(64))`); `?` by default. */
  placeholder?: string;
}

/** The parts of the drivers' connections used here (sqlite3 Database, pg Client, mysql2 Connection). */
interface SqliteStatement {
  all(params: readonly unknown[], callback: (error: Error | null, rows: unknown[]) => void): void;
  finalize(callback?: (error?: Error | null) => void): void;
}
interface SqliteConnection {
  prepare(sql: string, callback?: (error: Error | null) => void): SqliteStatement;
}
interface PgClient {
  query(config: { text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}
interface MysqlConnection {
  execute(sql: string, values: readonly unknown[], callback: (error: Error | null, rows: unknown) => void): unknown;
  /** mysql2: forgets the statement cached for this SQL (closing it on the server), so the next execute prepares it anew. */
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
 * pooler that resets connections, a server-side limit). Prepared once more, the read runs.
 */
const STALE_MYSQL_STATEMENT = new Set([1615, 1243]);

/** A SQLite statement and the reads running it: finalized only once retired and no read holds it. */
interface HeldStatement {
  prepared: Promise<SqliteStatement>;
  readers: number;
  retired: boolean;
  /** Resolves once finalized (or never prepared); made when the statement is retired. */
  finalized?: Promise<void>;
  /** Resolves `finalized`; cleared once finalization has begun. */
  finish?: () => void;
}

/**
 * One-row reads on the hot paths (the refresh-token lookup, a user by id or email) straight through the
 * driver, with the statement prepared once: Sequelize's query pipeline (query building, replacement
 * escaping, a `new Error()` per query for its stack, result formatting) costs ~185 µs of CPU per lookup
 * on SQLite, a prepared statement's ~37 µs (docs/performance.md). SQL is written with `?`
 * placeholders; the result is the driver's row, as a raw Sequelize query gives it.
 *  - SQLite: a statement prepared on Sequelize's own connection, kept until `close` or until a read of it
 *    fails; then finalized once the last read holding it is done (never under a read: SQLITE_MISUSE).
 *    Lookups by key that arrive while one runs go together in the next statement (read-batches.ts).
 *  - PostgreSQL: pg's unnamed statement (parse, bind, execute in one round trip), planned afresh each time:
 *    no cached plan to go stale when a column's type changes ("cached plan must not change result type",
 *    0A000), and no per-connection state for a transaction-mode pooler (PgBouncer) to lose (docs/databases.md).
 *  - MySQL/MariaDB: the binary protocol's prepared statement (`execute`, cached by mysql2 per connection),
 *    as Sequelize itself uses for bound parameters, with its connection's type casting and time zone;
 *    prepared once more and retried once when the server says it went stale (1615, 1243).
 *  - SQL Server: through Sequelize (tedious has no comparable one-call prepared read).
 * A driver's error comes wrapped as Sequelize wraps it; the store's `run` translates it like any other (sql-errors.ts).
 */
export class DirectReads {
  private statements = new Map<string, HeldStatement>();
  private statementsOf: unknown;
  /** PostgreSQL: each statement's `$n` text, made once per SQL text rather than on every read. */
  private readonly pgTexts = new Map<string, string>();
  /** Each keyed read's one-key SQL, made once. */
  private readonly keyedSql = new WeakMap<KeyedRead, string>();
  /** SQLite: the lookups of each keyed read, taken together (read-batches.ts), by its one-key SQL. */
  private readonly batches = new Map<string, ReadBatches<Record<string, unknown>>>();

  constructor(
    private readonly sequelize: Sequelize,
    private readonly engine: SqlEngine,
  ) {}

  private get connections(): ConnectionManager {
    return this.sequelize.connectionManager as unknown as ConnectionManager;
  }

  /**
   * The row whose key column holds `key`, or null. On SQLite, lookups that arrive while one runs go together
   * in the next statement (`IN (SELECT value FROM json_each(?))`, through the same unique index).
   */
  selectByKey<Row>(read: KeyedRead, key: string): Promise<Row | null> {
    let sql = this.keyedSql.get(read);
    if (sql === undefined) {
      sql = `${read.select} WHERE ${read.column} = ${read.placeholder ?? '?'}`;
      this.keyedSql.set(read, sql);
    }
    if (this.engine !== 'sqlite') return this.selectOne<Row>(sql, [key]);
    return this.batchesOf(read, sql).read(key) as Promise<Row | null>;
  }

  private batchesOf(read: KeyedRead, sql: string): ReadBatches<Record<string, unknown>> {
    let batches = this.batches.get(sql);
    if (!batches) {
      const many = `${read.select} WHERE ${read.column} IN (SELECT value FROM json_each(?))`;
      type Row = Record<string, unknown>;
      batches = new ReadBatches<Row>({
        one: (key) => this.selectOne<Row>(sql, [key]),
        many: (keys) => this.wrapped(async () => (await this.sqlite(many, [JSON.stringify(keys)])) as Row[]),
        keyOf: (row) => row[read.field],
      });
      this.batches.set(sql, batches);
    }
    return batches;
  }

  selectOne<Row>(sql: string, params: readonly unknown[]): Promise<Row | null> {
    return this.wrapped(() => this.select<Row>(sql, params));
  }

  private async wrapped<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      // Wrapped as Sequelize wraps it (the driver's error as `original`): the same error translation, and log
      // lines that name the driver's code without its message, whichever path the read took.
      // (Told by shape: a native driver's errors come from another realm's Error under a test runner.)
      const driverError = typeof (error as { message?: unknown } | null)?.message === 'string';
      throw error instanceof BaseError || !driverError
        ? error
        : new DatabaseError(error as ConstructorParameters<typeof DatabaseError>[0]);
    }
  }

  private async select<Row>(sql: string, params: readonly unknown[]): Promise<Row | null> {
    switch (this.engine) {
      case 'sqlite':
        return ((await this.sqlite(sql, params))[0] as Row | undefined) ?? null;
      case 'postgres':
        return this.pooled(
          async (client: PgClient) =>
            ((await client.query({ text: this.pgText(sql), values: params })).rows[0] as Row | undefined) ?? null,
        );
      case 'mysql':
        return this.pooled(async (connection: MysqlConnection) => {
          try {
            return await mysqlRow<Row>(connection, sql, params);
          } catch (error) {
            if (!STALE_MYSQL_STATEMENT.has(Number((error as { errno?: unknown }).errno))) throw error;
            connection.unprepare(sql);
            return mysqlRow<Row>(connection, sql, params); // once: a second failure is the store's to translate
          }
        });
      default:
        return (
          ((await this.sequelize.query(sql, {
            replacements: [...params],
            type: QueryTypes.SELECT,
            plain: true,
            logging: false,
          })) as Row | null) ?? null
        );
    }
  }

  /** Finalizes the prepared SQLite statements (once no read holds them), which would otherwise keep the database from closing. */
  async close(): Promise<void> {
    const held = [...this.statements.values()];
    this.statements = new Map();
    await Promise.all(held.map((statement) => this.retire(statement)));
  }

  /** The rows of a statement prepared on SQLite's connection. */
  private async sqlite(sql: string, params: readonly unknown[]): Promise<unknown[]> {
    // Sequelize's one connection for statements outside transactions (the same one its own queries use).
    const connection = (await this.connections.getConnection({ type: 'read' })) as SqliteConnection;
    if (this.statementsOf !== connection) {
      await this.close(); // a new connection (after a reconnect): the old statements belong to the old one
      this.statementsOf = connection;
    }
    let held = this.statements.get(sql);
    if (!held) {
      held = { prepared: prepare(connection, sql), readers: 0, retired: false };
      this.statements.set(sql, held);
    }
    held.readers += 1;
    try {
      const statement = await held.prepared;
      // `all`, not `get`: `get` leaves the statement open after its first row, holding SQLite's shared lock,
      // so every other connection's write (a transaction, another process) would fail with SQLITE_BUSY.
      // `all` steps to the end and resets the statement.
      return await new Promise<unknown[]>((resolve, reject) => {
        statement.all(params, (error, rows) => (error ? reject(error) : resolve(rows)));
      });
    } catch (error) {
      // Not prepared (no such table yet), or failed running (the schema changed under it): the next read
      // prepares it again; this one is finalized once every read already holding it is done.
      if (this.statements.get(sql) === held) this.statements.delete(sql);
      held.retired = true;
      throw error;
    } finally {
      held.readers -= 1;
      if (held.retired) void this.retire(held);
    }
  }

  /** Marks the statement retired and finalizes it, once, when no read holds it; resolves when that is done. */
  private retire(held: HeldStatement): Promise<void> {
    held.retired = true;
    held.finalized ??= new Promise<void>((resolve) => (held.finish = resolve));
    if (held.readers === 0 && held.finish) {
      const finish = held.finish;
      held.finish = undefined; // finalized once, whoever comes back here next
      held.prepared.then(
        (statement) => statement.finalize(() => finish()),
        () => finish(), // never prepared: nothing to finalize
      );
    }
    return held.finalized;
  }

  private pgText(sql: string): string {
    let text = this.pgTexts.get(sql);
    if (text === undefined) {
      text = numbered(sql);
      this.pgTexts.set(sql, text);
    }
    return text;
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

/** One row of a statement executed on a mysql2 connection (prepared on first use and cached by mysql2). */
function mysqlRow<Row>(connection: MysqlConnection, sql: string, params: readonly unknown[]): Promise<Row | null> {
  return new Promise<Row | null>((resolve, reject) => {
    connection.execute(sql, params, (error, rows) => (error ? reject(error) : resolve((rows as Row[])[0] ?? null)));
  });
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
