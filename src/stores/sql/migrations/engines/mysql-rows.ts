import { select } from '../select';
import { limitRows, type RowDdl } from './row-ddl';

// MySQL/MariaDB: no VALUES list to join (MariaDB's and MySQL's differ), so a derived table of SELECTs; it
// compares text in the connection's collation, so the columns' own are named in the join and the primary key
// serves it.

export const mysqlRows: RowDdl = {
  firstRows: limitRows,
  async prepareBatches(queryInterface, table, columns) {
    const rows = await select(
      queryInterface,
      'SELECT COLUMN_NAME AS `name`, COLLATION_NAME AS `collation` FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = :table AND COLUMN_NAME IN (:columns)',
      { table, columns },
    );
    return new Map(rows.filter((row) => row.collation != null).map((row) => [String(row.name), String(row.collation)]));
  },
  batchUpdate(queryInterface, { table, id, source, target, collations, sourceName }, rows, emptyOnly) {
    const collate = (column: string) => (collations?.has(column) ? ` COLLATE ${collations.get(column)!}` : '');
    const names = ['id', 'value', 'computed'];
    const derived = rows
      .map(
        (row, index) =>
          `SELECT ${[row.id, row.value, row.computed].map((value, at) => `${queryInterface.sequelize.escape(value as never)}${index === 0 ? ` AS ${names[at]}` : ''}`).join(', ')}`,
      )
      .join(' UNION ALL ');
    return `UPDATE ${table} AS r JOIN (${derived}) AS v ON r.${id} = v.id${collate('id')} AND r.${source} = v.value${collate(sourceName)} SET r.${target} = v.computed${emptyOnly ? ` WHERE r.${target} IS NULL` : ''}`;
  },
};
