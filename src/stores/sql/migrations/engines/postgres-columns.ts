import { select } from '../select';
import { dropWithIndexes, run, type ColumnDdl } from './column-ddl';

// PostgreSQL: each change is metadata only (no rewrite): SET/DROP NOT NULL, SET/DROP DEFAULT, RENAME COLUMN
// (the CHECK's expression follows), ALTER INDEX … RENAME; the foreign key PostgreSQL named after the column
// (`<table>_<column>_fkey`) takes the new name too. A column goes with its foreign key.

export const postgresColumns: ColumnDdl = {
  setNullability: (queryInterface, table, column, required) =>
    run(
      queryInterface,
      `ALTER TABLE ${queryInterface.quoteIdentifier(table)} ALTER COLUMN ${queryInterface.quoteIdentifier(column)} ${required ? 'SET' : 'DROP'} NOT NULL`,
    ),
  setDefault: (queryInterface, table, column, literal) =>
    run(
      queryInterface,
      `ALTER TABLE ${queryInterface.quoteIdentifier(table)} ALTER COLUMN ${queryInterface.quoteIdentifier(column)} ${literal === null ? 'DROP DEFAULT' : `SET DEFAULT ${literal}`}`,
    ),
  renameColumn: (queryInterface, table, from, to) =>
    run(
      queryInterface,
      `ALTER TABLE ${queryInterface.quoteIdentifier(table)} RENAME COLUMN ${queryInterface.quoteIdentifier(from)} TO ${queryInterface.quoteIdentifier(to)}`,
    ),
  async afterRename(queryInterface, table, from, to) {
    const [before, after] = [`${table}_${from}_fkey`, `${table}_${to}_fkey`];
    const named = await select(
      queryInterface,
      `SELECT conname FROM pg_constraint WHERE conrelid = to_regclass(:table) AND conname = :name`,
      { table, name: before },
    );
    if (named.length > 0)
      await run(
        queryInterface,
        `ALTER TABLE ${queryInterface.quoteIdentifier(table)} RENAME CONSTRAINT ${queryInterface.quoteIdentifier(before)} TO ${queryInterface.quoteIdentifier(after)}`,
      );
  },
  dropColumns: (queryInterface, table, columns) => dropWithIndexes(queryInterface, table, columns),
  renameIndex: (queryInterface, _table, from, to) =>
    run(
      queryInterface,
      `ALTER INDEX ${queryInterface.quoteIdentifier(from)} RENAME TO ${queryInterface.quoteIdentifier(to)}`,
    ),
};
