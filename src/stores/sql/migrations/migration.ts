import type { QueryInterface } from 'sequelize';

/** One versioned schema change. Names sort in order of application and are recorded in `schema_migrations`. */
export interface SqlMigration {
  name: string;
  up(queryInterface: QueryInterface): Promise<void>;
  down(queryInterface: QueryInterface): Promise<void>;
  /**
   * false: runs outside a transaction even where DDL is transactional (PostgreSQL, SQL Server), for
   * statements that refuse one, such as CREATE INDEX CONCURRENTLY. Its steps must then be safe to run again.
   */
  transaction?: boolean;
}

/** Applied migrations are recorded in this table (umzug's SequelizeStorage, column `name`). */
export const MIGRATIONS_TABLE = 'schema_migrations';
