import { checkConstraintName } from '../../../kit/field-rules';
import { select } from '../select';
import { dropWithIndexes, run, type ColumnDdl } from './column-ddl';
import { mysqlChecks, renameColumnStatement } from './mysql-checks';

// MySQL/MariaDB: nullability by MODIFY, which restates the whole column (its type, character set and
// collation, and default, as the server has them); a default by ALTER COLUMN; a rename in one ALTER with the
// column's CHECK set aside and made again (mysql-checks.ts); RENAME INDEX. A column's foreign key is dropped
// before the column: MySQL/MariaDB refuse to drop the index it uses.

export const mysqlColumns: ColumnDdl = {
  async setNullability(queryInterface, table, column, required) {
    const [row] = await select(
      queryInterface,
      'SELECT COLUMN_TYPE AS `type`, CHARACTER_SET_NAME AS `charset`, COLLATION_NAME AS `collation`, COLUMN_DEFAULT AS `fallback`, VERSION() AS `version` FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = :table AND COLUMN_NAME = :column',
      { table, column },
    );
    if (!row) throw new Error(`${table}.${column}: no such column`);
    const charset = row.charset ? ` CHARACTER SET ${String(row.charset)} COLLATE ${String(row.collation)}` : '';
    // MariaDB reports a default as SQL ('text', 0, NULL); MySQL as the bare value.
    const mariadb = /mariadb/i.test(String(row.version));
    const fallback =
      row.fallback === null || row.fallback === 'NULL'
        ? ''
        : ` DEFAULT ${mariadb ? String(row.fallback) : queryInterface.sequelize.escape(String(row.fallback))}`;
    const quote = (name: string) => queryInterface.quoteIdentifier(name);
    await run(
      queryInterface,
      `ALTER TABLE ${quote(table)} MODIFY ${quote(column)} ${String(row.type)}${charset} ${required ? 'NOT NULL' : 'NULL'}${fallback}`,
    );
  },
  setDefault: (queryInterface, table, column, literal) =>
    run(
      queryInterface,
      `ALTER TABLE ${queryInterface.quoteIdentifier(table)} ALTER COLUMN ${queryInterface.quoteIdentifier(column)} ${literal === null ? 'DROP DEFAULT' : `SET DEFAULT ${literal}`}`,
    ),
  async renameColumn(queryInterface, table, from, to) {
    const name = checkConstraintName(table, from);
    const clause = (await mysqlChecks.constraints(queryInterface, table)).get(name);
    const check = clause === undefined ? undefined : { name, clause, renamed: checkConstraintName(table, to) };
    await run(queryInterface, renameColumnStatement(queryInterface, table, from, to, check));
  },
  async dropColumns(queryInterface, table, columns) {
    const quote = (name: string) => queryInterface.quoteIdentifier(name);
    for (const column of columns) {
      const keys = await select(
        queryInterface,
        'SELECT CONSTRAINT_NAME AS name FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = :table AND COLUMN_NAME = :column AND REFERENCED_TABLE_NAME IS NOT NULL',
        { table, column },
      );
      for (const key of keys)
        await run(queryInterface, `ALTER TABLE ${quote(table)} DROP FOREIGN KEY ${quote(String(key.name))}`);
    }
    await dropWithIndexes(queryInterface, table, columns);
  },
  renameIndex: (queryInterface, table, from, to) =>
    run(
      queryInterface,
      `ALTER TABLE ${queryInterface.quoteIdentifier(table)} RENAME INDEX ${queryInterface.quoteIdentifier(from)} TO ${queryInterface.quoteIdentifier(to)}`,
    ),
};
