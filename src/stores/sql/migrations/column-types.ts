import type { DataTypes, QueryInterface } from 'sequelize';
import { ddlOf } from './engines/engine-ddl';

/**
 * Sequelize's data types, from the connection a migration is given. Migrations take them from here rather
 * than importing 'sequelize': a store's migrations are declared with the store, and a service on MongoDB
 * must not load Sequelize just by declaring them.
 */
export function dataTypesOf(queryInterface: QueryInterface): typeof DataTypes {
  return (queryInterface.sequelize.constructor as unknown as { DataTypes: typeof DataTypes }).DataTypes;
}

/**
 * A timestamp with millisecond precision on every engine: DATETIME(3) on MySQL/MariaDB, TIMESTAMP(3) WITH TIME
 * ZONE on PostgreSQL, DATETIMEOFFSET(3) on SQL Server, text on SQLite (engines/<engine>-types.ts).
 */
export function millisecondTimestamp(queryInterface: QueryInterface): string | ReturnType<typeof DataTypes.DATE> {
  return ddlOf(queryInterface.sequelize.getDialect()).types.timestamp ?? dataTypesOf(queryInterface).DATE(3);
}
