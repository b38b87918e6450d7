import { limitRows, valuesList, type RowDdl } from './row-ddl';

// PostgreSQL: UPDATE … FROM a VALUES list with named columns.

export const postgresRows: RowDdl = {
  firstRows: limitRows,
  batchUpdate: (queryInterface, { table, id, source, target }, rows, emptyOnly) =>
    `UPDATE ${table} SET ${target} = v.computed FROM (VALUES ${valuesList(queryInterface, rows)}) AS v(id, value, computed) WHERE ${table}.${id} = v.id AND ${table}.${source} = v.value${emptyOnly ? ` AND ${table}.${target} IS NULL` : ''}`,
};
