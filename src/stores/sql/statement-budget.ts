import type { Options } from 'sequelize';

// The statement budget on the engines whose driver has no per-statement timeout of its own: a statement
// running past DATABASE_TIMEOUT is stopped by the database (MariaDB/MySQL) or interrupted (SQLite), so it
// gives its connection back instead of holding it after the request was answered 503 (src/stores/guard.ts).
// PostgreSQL (statement_timeout) and SQL Server (tedious' requestTimeout) are set in connection-options.ts;
// MongoDB sends maxTimeMS with every operation.

interface MysqlSession {
  query(sql: string, callback: (error: Error | null) => void): void;
}

function run(connection: MysqlSession, sql: string): Promise<void> {
  return new Promise((resolve, reject) => connection.query(sql, (error) => (error ? reject(error) : resolve())));
}

/**
 * MariaDB's `max_statement_time` (seconds, any statement) on every new session; MySQL, which has no such
 * variable, gets `max_execution_time` (milliseconds, SELECTs only, which is where a runaway read comes from).
 */
export function mysqlStatementBudget(timeoutMs: number): NonNullable<Options['hooks']> {
  return {
    afterConnect: async (connection: unknown) => {
      const session = connection as MysqlSession;
      try {
        await run(session, `SET SESSION max_statement_time = ${(timeoutMs / 1000).toFixed(3)}`);
      } catch {
        await run(session, `SET SESSION max_execution_time = ${Math.round(timeoutMs)}`);
      }
    },
  };
}

interface SqliteConnection {
  interrupt(): void;
}

/**
 * SQLite runs in this process and has no statement timeout: each statement Sequelize runs gets a timer that
 * calls sqlite3's `interrupt()` on its connection when the budget is spent, which stops the running
 * statement with SQLITE_INTERRUPT (answered 503, sql-errors.ts). An interrupt stops whatever runs on that
 * connection at that moment: SQLite runs one statement per connection at a time, so that is the statement
 * over the budget, or one that has waited behind it. Migrations are not budgeted (`unbudgeted`).
 */
export class SqliteStatementBudget {
  private readonly timers = new WeakMap<object, NodeJS.Timeout>();
  private suspended = 0;

  constructor(private readonly timeoutMs: number) {}

  /** The hooks to give Sequelize (beforeQuery / afterQuery: its public query hooks). */
  hooks(): NonNullable<Options['hooks']> {
    return {
      beforeQuery: (_options: unknown, query: unknown) => this.start(query as { connection?: SqliteConnection }),
      afterQuery: (_options: unknown, query: unknown) => this.stop(query as object),
    };
  }

  /** Runs `work` (migrations: long by nature, under MIGRATION_TIMEOUT's care) with no statement budget. */
  async unbudgeted<T>(work: () => Promise<T>): Promise<T> {
    this.suspended += 1;
    try {
      return await work();
    } finally {
      this.suspended -= 1;
    }
  }

  private start(query: { connection?: SqliteConnection }): void {
    const connection = query.connection;
    if (this.suspended > 0 || typeof connection?.interrupt !== 'function') return;
    const timer = setTimeout(() => connection.interrupt(), this.timeoutMs);
    timer.unref();
    this.timers.set(query, timer);
  }

  private stop(query: object): void {
    clearTimeout(this.timers.get(query));
    this.timers.delete(query);
  }
}
