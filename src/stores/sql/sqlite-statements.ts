/** The parts of sqlite3's Database and Statement used here. */
interface SqliteStatement {
  all(params: readonly unknown[], callback: (error: Error | null, rows: unknown[]) => void): void;
  run(params: readonly unknown[], callback: (error: Error | null) => void): void;
  finalize(callback?: (error?: Error | null) => void): void;
}
interface SqliteConnection {
  prepare(sql: string, callback?: (error: Error | null) => void): SqliteStatement;
}

/** A SQLite statement and the calls running it: finalized only once retired and no call holds it. */
interface HeldStatement {
  prepared: Promise<SqliteStatement>;
  users: number;
  retired: boolean;
  /** Resolves once finalized (or never prepared); made when the statement is retired. */
  finalized?: Promise<void>;
  /** Resolves `finalized`; cleared once finalization has begun. */
  finish?: () => void;
}

/**
 * Statements prepared once on Sequelize's own SQLite connection (the one it runs statements outside
 * transactions on), each kept until `close`, until the connection changes, or until a call of it fails; then
 * finalized once the last call holding it is done (never under a call: SQLITE_MISUSE). An unfinalized statement
 * would keep the database from closing.
 */
export class SqliteStatements {
  private statements = new Map<string, HeldStatement>();
  private statementsOf: unknown;

  constructor(private readonly connection: () => Promise<unknown>) {}

  /** Every row of `sql`. */
  all(sql: string, params: readonly unknown[]): Promise<unknown[]> {
    return this.using(sql, (statement) => {
      // `all`, not `get`: `get` leaves the statement open after its first row, holding SQLite's shared lock,
      // so every other connection's write (a transaction, another process) would fail with SQLITE_BUSY.
      // `all` steps to the end and resets the statement.
      return new Promise<unknown[]>((resolve, reject) => {
        statement.all(params, (error, rows) => (error ? reject(error) : resolve(rows)));
      });
    });
  }

  /** Runs `sql`, which returns no rows (an INSERT). */
  run(sql: string, params: readonly unknown[]): Promise<void> {
    return this.using(sql, (statement) => {
      return new Promise<void>((resolve, reject) => {
        statement.run(params, (error) => (error ? reject(error) : resolve()));
      });
    });
  }

  /** Finalizes every statement (once no call holds it). */
  async close(): Promise<void> {
    const held = [...this.statements.values()];
    this.statements = new Map();
    await Promise.all(held.map((statement) => this.retire(statement)));
  }

  private async using<T>(sql: string, call: (statement: SqliteStatement) => Promise<T>): Promise<T> {
    const connection = (await this.connection()) as SqliteConnection;
    if (this.statementsOf !== connection) {
      await this.close(); // a new connection (after a reconnect): the old statements belong to the old one
      this.statementsOf = connection;
    }
    let held = this.statements.get(sql);
    if (!held) {
      held = { prepared: prepare(connection, sql), users: 0, retired: false };
      this.statements.set(sql, held);
    }
    held.users += 1;
    try {
      return await call(await held.prepared);
    } catch (error) {
      // Not prepared (no such table yet), or failed running (the schema changed under it, or a locked
      // database, a duplicate key): the next call prepares it again, which costs only on these error paths;
      // this one is finalized once every call already holding it is done.
      if (this.statements.get(sql) === held) this.statements.delete(sql);
      held.retired = true;
      throw error;
    } finally {
      held.users -= 1;
      if (held.retired) void this.retire(held);
    }
  }

  /** Marks the statement retired and finalizes it, once, when no call holds it; resolves when that is done. */
  private retire(held: HeldStatement): Promise<void> {
    held.retired = true;
    held.finalized ??= new Promise<void>((resolve) => (held.finish = resolve));
    if (held.users === 0 && held.finish) {
      const finish = held.finish;
      held.finish = undefined; // finalized once, whoever comes back here next
      held.prepared.then(
        (statement) => statement.finalize(() => finish()),
        () => finish(), // never prepared: nothing to finalize
      );
    }
    return held.finalized;
  }
}

/** A statement prepared on the connection: resolved once SQLite has compiled it, rejected with its error. */
function prepare(connection: SqliteConnection, sql: string): Promise<SqliteStatement> {
  return new Promise((resolve, reject) => {
    const statement = connection.prepare(sql, (error) => (error ? reject(error) : resolve(statement)));
  });
}
