import { DataTypes, type QueryInterface } from 'sequelize';

/**
 * A timestamp with millisecond precision on every engine: DATETIME(3) on MySQL/MariaDB,
 * TIMESTAMP(3) WITH TIME ZONE on PostgreSQL, DATETIMEOFFSET(3) on SQL Server, text on SQLite
 * (Sequelize writes ISO-like UTC strings with milliseconds, which compare in order).
 * Sequelize ignores the length of DATE on PostgreSQL and SQL Server, hence the explicit SQL there.
 */
export function millisecondTimestamp(queryInterface: QueryInterface): string | ReturnType<typeof DataTypes.DATE> {
  switch (queryInterface.sequelize.getDialect()) {
    case 'postgres':
      return 'TIMESTAMP(3) WITH TIME ZONE';
    case 'mssql':
      return 'DATETIMEOFFSET(3)';
    default:
      return DataTypes.DATE(3);
  }
}
