import { run, type ColumnDdl } from './column-ddl';

// PostgreSQL: each change is metadata only (no rewrite): SET/DROP NOT NULL, SET/DROP DEFAULT, RENAME COLUMN
// (the CHECK's expression follows), ALTER INDEX … RENAME.

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
  renameIndex: (queryInterface, _table, from, to) =>
    run(
      queryInterface,
      `ALTER INDEX ${queryInterface.quoteIdentifier(from)} RENAME TO ${queryInterface.quoteIdentifier(to)}`,
    ),
};
