import type { DataTypes, QueryInterface } from 'sequelize';

/**
 * Sequelize's data types, from the connection a migration is given. Migrations take them from here rather
 * than importing 'sequelize': a store's migrations are declared with the store, and a service on MongoDB
 * must not load Sequelize just by declaring them.
 */
export function dataTypesOf(queryInterface: QueryInterface): typeof DataTypes {
  return (queryInterface.sequelize.constructor as unknown as { DataTypes: typeof DataTypes }).DataTypes;
}

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
      return dataTypesOf(queryInterface).DATE(3);
  }
}
