import { indexesOf } from '../indexes-of';
import {
  blocking,
  changeMssqlColumn,
  columnDependants,
  dropDependants,
  NO_DEPENDANTS,
  renamesOf,
  restoreDependants,
} from '../mssql-dependants';
import { select } from '../select';
import { dropColumn, run, type ColumnDdl } from './column-ddl';

// SQL Server: nullability by ALTER COLUMN, restating the type and collation, with what depends on the column
// set aside around it (mssql-dependants.ts: it refuses otherwise); a default as the column's one default
// constraint, whatever its name (system-named when made inline), replaced by DF_<table>_<column>; renames by
// sp_rename, with what it does not carry (computed lengths, CHECK and DEFAULT constraints, the unique keys over
// the lengths) set aside and made again under the new names; a drop past every dependant, a length only a
// dropped key used going too, as a fresh create would not have it.

export const mssqlColumns: ColumnDdl = {
  async setNullability(queryInterface, table, column, required) {
    const quote = (name: string) => queryInterface.quoteIdentifier(name);
    const [row] = await select(
      queryInterface,
      'SELECT DATA_TYPE AS [type], CHARACTER_MAXIMUM_LENGTH AS [length], DATETIME_PRECISION AS [precision], COLLATION_NAME AS [collation] FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = :table AND COLUMN_NAME = :column',
      { table, column },
    );
    if (!row) throw new Error(`${table}.${column}: no such column`);
    const size =
      row.length != null
        ? `(${Number(row.length) === -1 ? 'MAX' : Number(row.length)})`
        : String(row.type).toLowerCase() === 'datetimeoffset'
          ? `(${Number(row.precision)})`
          : '';
    const type = `${String(row.type).toUpperCase()}${size}${row.collation ? ` COLLATE ${String(row.collation)}` : ''}`;
    await changeMssqlColumn(queryInterface, table, [column], 'alter', () =>
      run(
        queryInterface,
        `ALTER TABLE ${quote(table)} ALTER COLUMN ${quote(column)} ${type} ${required ? 'NOT NULL' : 'NULL'}`,
      ),
    );
  },
  async setDefault(queryInterface, table, column, literal) {
    const { defaults } = await columnDependants(queryInterface, table, [column]);
    await dropDependants(queryInterface, table, { ...NO_DEPENDANTS, defaults });
    if (literal !== null)
      await run(
        queryInterface,
        `ALTER TABLE ${queryInterface.quoteIdentifier(table)} ADD CONSTRAINT ${queryInterface.quoteIdentifier(`DF_${table}_${column}`)} DEFAULT ${literal} FOR ${queryInterface.quoteIdentifier(column)}`,
      );
  },
  async aroundRename(queryInterface, table, pairs, rename, indexName) {
    const columns = pairs.map(([old]) => old);
    const aside = blocking(await columnDependants(queryInterface, table, columns), 'rename');
    await dropDependants(queryInterface, table, aside);
    await rename();
    await restoreDependants(queryInterface, table, aside, renamesOf(table, pairs), indexName);
  },
  async dropColumns(queryInterface, table, columns, described) {
    const drop = (column: string) => dropColumn(queryInterface, table, column);
    await changeMssqlColumn(queryInterface, table, columns, 'drop', async () => {
      const indexed = new Set((await indexesOf(queryInterface, table)).flatMap((index) => index.columns));
      const unused = Object.keys(described).filter(
        (name) =>
          name.endsWith('_bytes') && !indexed.has(name) && !columns.some((column) => name === `${column}_bytes`),
      );
      for (const length of unused) await drop(length);
      for (const column of columns) await drop(column);
    });
  },
  renameColumn: (queryInterface, table, from, to) =>
    run(queryInterface, `EXEC sp_rename N'${table}.${from}', N'${to}', N'COLUMN'`),
  renameIndex: (queryInterface, table, from, to) =>
    run(queryInterface, `EXEC sp_rename N'${table}.${from}', N'${to}', N'INDEX'`),
};
