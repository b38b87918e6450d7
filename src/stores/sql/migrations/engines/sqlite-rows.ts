import { limitRows, valuesList, type RowDdl } from './row-ddl';

// SQLite: UPDATE … FROM (3.33+) a VALUES list, whose columns are column1, column2, column3.

export const sqliteRows: RowDdl = {
  firstRows: limitRows,
  batchUpdate: (queryInterface, { table, id, source, target }, rows, emptyOnly) =>
    `UPDATE ${table} SET ${target} = v.column3 FROM (VALUES ${valuesList(queryInterface, rows)}) AS v WHERE ${table}.${id} = v.column1 AND ${table}.${source} = v.column2${emptyOnly ? ` AND ${table}.${target} IS NULL` : ''}`,
};
