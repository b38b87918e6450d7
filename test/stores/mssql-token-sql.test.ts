import { DataTypes, Sequelize } from 'sequelize';
import { SqlRefreshTokenStore } from '../../src/auth/stores/sql-refresh-token-store';
import type { SqlStoreContext } from '../../src/stores/kit/definition';
import type { SqlEngine } from '../../src/stores/sql/connection-options';
import { DirectReads } from '../../src/stores/sql/direct-reads';
import { DriverStatements } from '../../src/stores/sql/driver-statements';

// What the refresh-token store asks of SQL Server, without a server: the SQL Sequelize generates for each
// operation on the digest. The column is CHAR(64); a bare N'…' literal (NVARCHAR, Sequelize's form for every
// string on mssql) would make SQL Server convert the column and scan the primary key on every refresh,
// retire and logout. Each digest must arrive as CHAR(64).

const DIGEST = 'ab'.repeat(32);

function storeCapturing(engine: SqlEngine): { store: SqlRefreshTokenStore; statements: string[] } {
  // No driver is needed to generate SQL: a stand-in module keeps tedious (whose Azure dependencies jest cannot
  // load) out of this test; the SQL is Sequelize's mssql dialect's own.
  const driver = engine === 'mssql' ? { dialectModule: { Connection: class {}, TYPES: {}, ISOLATION_LEVEL: {} } } : {};
  const sequelize = new Sequelize({
    dialect: engine,
    logging: false,
    ...driver,
    ...(engine === 'sqlite' ? { storage: ':memory:' } : { host: '127.0.0.1' }),
  });
  const statements: string[] = [];
  // Nothing reaches a server: every statement is recorded and answered with "no rows".
  sequelize.query = (async (
    sql: string | { query: string },
    options?: { replacements?: Record<string, string> | string[] },
  ) => {
    let text = typeof sql === 'string' ? sql : sql.query;
    const replacements = options?.replacements ?? {};
    if (Array.isArray(replacements))
      for (const value of replacements) text = text.replace('?', sequelize.escape(value));
    else
      for (const [name, value] of Object.entries(replacements))
        text = text.replace(`:${name}`, sequelize.escape(value));
    statements.push(text);
    return [[], 0];
  }) as typeof sequelize.query;
  const context: SqlStoreContext = {
    sequelize,
    DataTypes,
    engine,
    timeoutMs: 1_000,
    run: async (operation) => {
      try {
        return await operation();
      } catch {
        return undefined as never; // the stub's answers do not fit every result parser: only the SQL matters here
      }
    },
    transaction: (work) => sequelize.transaction(work),
    // SQL Server's hot-path reads go through Sequelize (DirectReads' own path, recorded by the stand-in above);
    // the other engines' drivers are not reached here, so their lookup is recorded as the driver would get it.
    selectByKey:
      engine === 'mssql'
        ? (read, key) => new DirectReads(new DriverStatements(sequelize, engine)).selectByKey(read, key)
        : async (read, key) => {
            await sequelize.query(`${read.select} WHERE ${read.column} = ${read.placeholder ?? '?'}`, {
              replacements: [key],
            });
            return null;
          },
    execute:
      engine === 'mssql'
        ? (sql, params) => new DriverStatements(sequelize, engine).execute(sql, params)
        : async (sql, params) => void (await sequelize.query(sql, { replacements: [...params] })),
    removeExpiredPeriodically: () => undefined,
  };
  return { store: new SqlRefreshTokenStore(context), statements };
}

describe('refresh-token digests on SQL Server', () => {
  it('every lookup, retire and delete compares the CHAR(64) column with a CHAR(64) value', async () => {
    const { store, statements } = storeCapturing('mssql');
    await store.findByToken(DIGEST);
    await store.retire(DIGEST, new Date());
    await store.deleteByToken(DIGEST);
    await store.deleteFamily(DIGEST);
    expect(statements).toHaveLength(5); // deleteFamily deletes twice (a racing rotation's successor)
    for (const sql of statements) {
      expect(sql).toContain(`[token] = CAST(N'${DIGEST}' AS CHAR(64))`);
      expect(sql).not.toMatch(new RegExp(`\\[token\\] = N'${DIGEST}'`));
    }
  });

  it("a login's INSERT: the dates as DATETIMEOFFSET text in UTC, to the millisecond", async () => {
    const { store, statements } = storeCapturing('mssql');
    const expiresAt = new Date('2026-01-02T03:04:05.678Z');
    await store.create({ token: DIGEST, userId: 'u1', expiresAt });
    expect(statements).toHaveLength(1);
    const [sql] = statements;
    expect(sql.replace(/N'\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \+00:00'\)$/, 'NOW)')).toBe(
      'INSERT INTO [refresh_tokens] ([token], [user_id], [expires_at], [family_id], [created_at]) ' +
        `VALUES (N'${DIGEST}', N'u1', N'2026-01-02 03:04:05.678 +00:00', N'${DIGEST}', NOW)`,
    );
  });

  it('the other engines compare plain strings (their string literals already match the column)', async () => {
    for (const engine of ['postgres', 'mysql', 'sqlite'] as const) {
      const { store, statements } = storeCapturing(engine);
      await store.findByToken(DIGEST);
      await store.deleteByToken(DIGEST);
      for (const sql of statements) expect(sql).not.toContain('CAST(');
    }
  });
});
