import type { QueryInterface } from 'sequelize';

/** One versioned schema change. Names sort in order of application and are recorded in `schema_migrations`. */
export interface SqlMigration {
  name: string;
  up(queryInterface: QueryInterface): Promise<void>;
  down(queryInterface: QueryInterface): Promise<void>;
}

/** Applied migrations are recorded in this table (umzug's SequelizeStorage, column `name`). */
export const MIGRATIONS_TABLE = 'schema_migrations';
