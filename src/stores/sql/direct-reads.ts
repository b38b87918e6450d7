import type { DriverStatements } from './driver-statements';
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

/**
 * One-row reads on the hot paths (the refresh-token lookup, a user by id or email) straight through the
 * driver with the statement prepared once (driver-statements.ts): Sequelize's query pipeline costs ~185 µs of
 * CPU per lookup on SQLite, a prepared statement's ~37 µs (docs/performance.md). The result is the driver's
 * row, as a raw Sequelize query gives it. On SQLite, lookups by key that arrive while one runs go together in
 * the next statement (read-batches.ts).
 */
export class DirectReads {
  /** Each keyed read's one-key SQL, made once. */
  private readonly keyedSql = new WeakMap<KeyedRead, string>();
  /** SQLite: the lookups of each keyed read, taken together (read-batches.ts), by its one-key SQL. */
  private readonly batches = new Map<string, ReadBatches<Record<string, unknown>>>();

  constructor(private readonly driver: DriverStatements) {}

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
    if (this.driver.engine !== 'sqlite') return this.selectOne<Row>(sql, [key]);
    return this.batchesOf(read, sql).read(key) as Promise<Row | null>;
  }

  private batchesOf(read: KeyedRead, sql: string): ReadBatches<Record<string, unknown>> {
    let batches = this.batches.get(sql);
    if (!batches) {
      const many = `${read.select} WHERE ${read.column} IN (SELECT value FROM json_each(?))`;
      type Row = Record<string, unknown>;
      batches = new ReadBatches<Row>({
        one: (key) => this.selectOne<Row>(sql, [key]),
        many: async (keys) => (await this.driver.rows(many, [JSON.stringify(keys)])) as Row[],
        keyOf: (row) => row[read.field],
      });
      this.batches.set(sql, batches);
    }
    return batches;
  }

  private async selectOne<Row>(sql: string, params: readonly unknown[]): Promise<Row | null> {
    return ((await this.driver.rows(sql, params))[0] as Row | undefined) ?? null;
  }
}
