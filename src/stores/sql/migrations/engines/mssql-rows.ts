import { valuesList, type RowDdl } from './row-ddl';

// SQL Server: TOP instead of LIMIT; UPDATE of an alias joined to a VALUES list.

export const mssqlRows: RowDdl = {
  firstRows: (columns, from, limit) => `SELECT TOP ${limit} ${columns} FROM ${from}`,
  batchUpdate: (queryInterface, { table, id, source, target }, rows, emptyOnly) =>
    `UPDATE r SET r.${target} = v.computed FROM ${table} AS r JOIN (VALUES ${valuesList(queryInterface, rows)}) AS v(id, value, computed) ON r.${id} = v.id AND r.${source} = v.value${emptyOnly ? ` WHERE r.${target} IS NULL` : ''}`,
};
