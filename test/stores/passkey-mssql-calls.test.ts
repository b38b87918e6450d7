import { DataTypes, Sequelize } from 'sequelize';
import { createPasskeys } from '../../src/auth/stores/migrations/0012-create-passkeys';
import { SqlPasskeyStore } from '../../src/auth/stores/sql-passkey-store';
import type { SqlStoreContext } from '../../src/stores/kit/definition';

// What the passkey table and store ask of SQL Server, where no server runs here: the DDL of migration 0012
// (the credential id VARBINARY and unique, the key VARBINARY(MAX)) and the statements of the store — the
// credential id compared as a binary literal (no conversion of the column, so the unique index serves the
// sign-in), the counter moved by one conditional UPDATE.

function capturing(): { sequelize: Sequelize; statements: string[] } {
  // No driver is needed to generate SQL (a stand-in keeps tedious out, as in mssql-token-sql.test.ts).
  const sequelize = new Sequelize({
    dialect: 'mssql',
    logging: false,
    host: '127.0.0.1',
    dialectModule: { Connection: class {}, TYPES: {}, ISOLATION_LEVEL: {} },
  });
  const statements: string[] = [];
  sequelize.query = (async (sql: string | { query: string }) => {
    statements.push(typeof sql === 'string' ? sql : sql.query);
    return [[], 0];
  }) as typeof sequelize.query;
  return { sequelize, statements };
}

describe('SQL Server: the passkey table and store', () => {
  it('creates the table with binary credential ids, unique, and the user index; the down drops it', async () => {
    const { sequelize, statements } = capturing();
    await createPasskeys.up(sequelize.getQueryInterface());
    const ddl = statements.join('\n');
    expect(ddl).toMatch(/CREATE TABLE \[passkeys\]/);
    expect(ddl).toMatch(/\[credential_id\] VARBINARY\(1023\) NOT NULL/);
    expect(ddl).toMatch(/\[public_key\] VARBINARY\(MAX\) NOT NULL/);
    expect(ddl).toMatch(/\[name\] NVARCHAR\(64\) NOT NULL/);
    expect(ddl).toMatch(/CREATE UNIQUE INDEX \[passkeys_credential_id\] ON \[passkeys\] \(\[credential_id\]\)/);
    expect(ddl).toMatch(/CREATE INDEX \[passkeys_user_created\] ON \[passkeys\] \(\[user_id\], \[created_at\]\)/);
    statements.length = 0;
    await createPasskeys.down(sequelize.getQueryInterface());
    expect(statements.join('\n')).toMatch(/DROP TABLE \[passkeys\]/);
  });

  it('compares the credential id as a binary literal, and moves the counter by one conditional update', async () => {
    const { sequelize, statements } = capturing();
    const context = {
      sequelize,
      DataTypes,
      engine: 'mssql',
      timeoutMs: 1000,
      run: async (operation: () => Promise<unknown>) => operation().catch(() => undefined),
    } as unknown as SqlStoreContext;
    const store = new SqlPasskeyStore(context);
    await store.findByCredentialId(Buffer.from([0, 1, 0xab, 0xff]));
    expect(statements.at(-1)).toMatch(/WHERE \[Passkey\]\.\[credential_id\] = 0x0001abff/);
    await store.recordUse('p1', 7, new Date('2026-01-02T03:04:05.678Z'));
    expect(statements.at(-1)).toBe(
      'UPDATE [passkeys] SET [counter]=$1,[last_used_at]=$2 WHERE [id] = $3 AND [counter] < 7',
    );
  });
});
