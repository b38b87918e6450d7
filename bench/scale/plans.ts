import { Writable } from 'node:stream';
import pino from 'pino';
import type { Sequelize } from 'sequelize';
import { LOG_OPTIONS, type Logger } from '../../src/logger';
import type { ScaleEngine } from './settings';

// The query plans of a list, read cheaply: the service logs each statement's SQL at trace level (with the
// values inline: Sequelize writes model queries with literals), so the bench gives it a logger of its own,
// turns trace on around one request, keeps the statements on the table measured, and asks the engine how it
// runs them: PostgreSQL EXPLAIN (ANALYZE, BUFFERS), MariaDB EXPLAIN, SQLite EXPLAIN QUERY PLAN.

export interface StatementPlan {
  sql: string;
  plan: string[];
}

/** The service's logger: warnings and errors to stderr, SQL statements kept while capturing. */
export class CapturingLogger {
  readonly logger: Logger;
  private captured: string[] | undefined;

  constructor() {
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        for (const line of chunk.toString().split('\n').filter(Boolean)) this.take(line);
        done();
      },
    });
    this.logger = pino({ ...LOG_OPTIONS, level: 'warn' }, sink);
  }

  private take(line: string): void {
    const entry = JSON.parse(line) as { level?: number; msg?: string; sql?: string };
    if (this.captured && entry.msg === 'sql' && typeof entry.sql === 'string') this.captured.push(entry.sql);
    else if ((entry.level ?? 0) >= 40) process.stderr.write(`service: ${line}\n`);
  }

  /** The SQL statements `work` made the service run (pino writes synchronously to this sink). */
  async capture(work: () => Promise<unknown>): Promise<string[]> {
    this.captured = [];
    this.logger.level = 'trace';
    try {
      await work();
      return this.captured;
    } finally {
      this.logger.level = 'warn';
      this.captured = undefined;
    }
  }
}

/** `Executing (default): SELECT …;` → `SELECT …`. */
function statementOf(logged: string): string {
  return logged.replace(/^Executing \([^)]*\):\s*/, '').replace(/;\s*$/, '');
}

/** The SELECTs among `logged` that read `table` (the guards' own lookups of the caller are left out). */
export function listStatements(logged: readonly string[], table: string): string[] {
  const reads = new RegExp(`\\bFROM\\s+[\`"]?${table}[\`"]?(\\s|$)`, 'i');
  return logged
    .map(statementOf)
    .filter(
      (sql) =>
        /^SELECT\b/i.test(sql) &&
        reads.test(sql) &&
        !(table === 'users' && /\bLIMIT 1\b/i.test(sql) && /\bid\b\s*=/.test(sql)),
    );
}

export async function explain(sequelize: Sequelize, engine: ScaleEngine, sql: string): Promise<string[]> {
  if (engine === 'postgres') {
    const [rows] = await sequelize.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`);
    return (rows as Record<string, string>[]).map((row) => row['QUERY PLAN']!);
  }
  if (engine === 'mysql') {
    const [rows] = await sequelize.query(`EXPLAIN ${sql}`);
    return (rows as Record<string, unknown>[]).map((row) =>
      `${String(row.table)}: type=${String(row.type)} key=${String(row.key)} rows=${String(row.rows)} ${String(row.Extra ?? '')}`.trim(),
    );
  }
  const [rows] = await sequelize.query(`EXPLAIN QUERY PLAN ${sql}`);
  return (rows as { detail: string }[]).map((row) => row.detail);
}
