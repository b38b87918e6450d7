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
  /**
   * Why this migration's down deliberately leaves the schema as its up made it (a one-way change). Without
   * it, a down must undo its up exactly: the store suites check every registered migration that way and
   * name the first that does not (test/support/migration-round-trip.ts).
   */
  keptOnDown?: string;
  /**
   * What the up destroys: a table dropped, a field's column dropped. Start-up (MIGRATE_ON_START) does not
   * run it while any of them holds data here; it stops naming it and allowDestructiveCommand, which an
   * operator runs after a backup. (MongoDB's `documents` say it themselves: `drop`, `unset`.)
   */
  destroys?: readonly DataLoss[];
  /**
   * What the down destroys: the table a first migration made, the column an added field made. `db:migrate
   * down` does not run it while any of them holds data here, unless `--allow-destructive`. The store suites
   * name a down that drops a table or column it does not declare here (test/support/migration-round-trip.ts).
   */
  downDestroys?: readonly DataLoss[];
  /**
   * The same change on MongoDB's documents, where a resource's fields are renamed or removed: applied once
   * by MongoDatabase.migrate() (recorded under this migration's name in the `schema_migrations` collection),
   * before the models' indexes are built. The relational steps above are not run there.
   */
  documents?: DocumentChange;
}

/** A table (its rows) or one column of it (its values) that a migration's up removes. */
export interface DataLoss {
  table: string;
  column?: string;
}

/**
 * Fields of a collection's documents renamed (`$rename`, a case-insensitive string's `<name>Folded` shadow
 * with it) or removed (`$unset`, its shadow too); indexes on the old fields are dropped. Or the collection
 * dropped. Or fields filled in documents written before them, as the relational steps fill the rows.
 */
export interface DocumentChange {
  collection: string;
  /** The whole collection goes (a module removed). */
  drop?: boolean;
  rename?: Readonly<Record<string, string>>;
  unset?: readonly string[];
  fill?: readonly FieldFill[];
  /** Every document made the catalogue's (a resource made a catalogue), once no unique key (field paths) would clash. */
  catalogue?: { unique: readonly (readonly string[])[] };
}

/**
 * What documents written before a change lack, filled as a relational column's DEFAULT (or the backfill of a
 * new shadow column) fills the rows: without it, `?pinned=false` or `?q=` would miss them on MongoDB only.
 */
export interface FieldFill {
  field: string;
  /** Documents without the field get this value, with its shadows (a field added with a default). */
  default?: string | number | boolean | Date;
  /** The field is case-insensitive: its `<field>Folded` shadow is filled with the default. */
  caseInsensitive?: boolean;
  /** The field is searched: its `<field>Search` shadow is computed for every document that lacks it. */
  search?: boolean;
}

/** Applied migrations are recorded in this table (column `name`, as umzug's SequelizeStorage made it: migration-runner.ts). */
export const MIGRATIONS_TABLE = 'schema_migrations';
