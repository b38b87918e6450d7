import { definesColumn, rebuildSqlite } from '../sqlite-rebuild';
import { dropColumn, dropWithIndexes, run, type ColumnDdl } from './column-ddl';
import { sqliteCatalog } from './sqlite-catalog';

// SQLite: ALTER TABLE cannot change whether a column takes null: the table is rebuilt from its own definition
// (sqlite-rebuild.ts). Nor a default: the column keeps the one it was created with, and the store, which fills
// every default on create, is what applies a changed one. RENAME COLUMN rewrites what names the column (the
// CHECK's expression with it); an index, which cannot be renamed, is made again from its definition. A column
// a foreign key uses cannot be dropped by ALTER TABLE: the table is rebuilt without it.

export const sqliteColumns: ColumnDdl = {
  setNullability: (queryInterface, table, column, required) =>
    rebuildSqlite(queryInterface, table, (parts) =>
      parts.map((part) => {
        if (!definesColumn(part, column)) return part;
        const relaxed = part.replace(/\s+NOT NULL\b/i, '');
        return required ? `${relaxed} NOT NULL` : relaxed;
      }),
    ),
  setDefault: async () => undefined,
  async addRequiredToEmpty(queryInterface, table, name, spec) {
    // SQLite adds no NOT NULL column without a default, even to an empty table: rebuilt with it, as
    // Sequelize would write the column in an ADD COLUMN.
    const generator = (
      queryInterface as unknown as {
        queryGenerator: { addColumnQuery(table: string, key: string, spec: unknown): string };
      }
    ).queryGenerator;
    const normalized = (
      queryInterface.sequelize as unknown as { normalizeAttribute(spec: unknown): unknown }
    ).normalizeAttribute(spec);
    const statement = generator.addColumnQuery(table, name, normalized);
    await rebuildSqlite(queryInterface, table, (parts) => [
      ...parts,
      statement.replace(/^ALTER TABLE \S+ ADD /, '').replace(/;$/, ''),
    ]);
  },
  dropColumns: (queryInterface, table, columns) =>
    dropWithIndexes(queryInterface, table, columns, async (column) => {
      if ((await sqliteCatalog.foreignKeys(queryInterface, table)).some((key) => key.column === column))
        await rebuildSqlite(
          queryInterface,
          table,
          (parts) => parts.filter((part) => !definesColumn(part, column)),
          column,
        );
      else await dropColumn(queryInterface, table, column);
    }),
  renameColumn: (queryInterface, table, from, to) =>
    run(
      queryInterface,
      `ALTER TABLE ${queryInterface.quoteIdentifier(table)} RENAME COLUMN ${queryInterface.quoteIdentifier(from)} TO ${queryInterface.quoteIdentifier(to)}`,
    ),
  async renameIndex(queryInterface, _table, from, to) {
    const quote = (name: string) => queryInterface.quoteIdentifier(name);
    const [rows] = await queryInterface.sequelize.query(
      `SELECT sql FROM sqlite_master WHERE type = 'index' AND name = :from`,
      { replacements: { from } },
    );
    const definition = String((rows as { sql: string }[])[0]?.sql ?? '');
    const renamed = definition.replace(/^(CREATE (?:UNIQUE )?INDEX )(?:`[^`]+`|"[^"]+"|\S+)/i, `$1${quote(to)}`);
    await run(queryInterface, `DROP INDEX ${quote(from)}`);
    await run(queryInterface, renamed);
  },
};
