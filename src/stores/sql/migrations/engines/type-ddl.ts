import type { QueryInterface } from 'sequelize';

// The column types each engine gives the kit's fields, so that strings compare alike on every engine (by code
// point, no padding) and timestamps keep milliseconds: one object per engine (<engine>-types.ts).

export interface TypeDdl {
  /** The clause giving a string column its binary (code point) collation; empty where the default already is. */
  binaryCollation(queryInterface: QueryInterface): Promise<string>;
  /** A short string of at most `length` characters, in `collation`. */
  string(length: number, collation: string): string;
  /** A long text, in `collation`. */
  text(collation: string): string;
  /** Whether a text column may have a literal DEFAULT (MySQL 8 refuses one; MariaDB takes it). */
  textDefaults(queryInterface: QueryInterface): Promise<boolean>;
  /** A timestamp with millisecond precision, where Sequelize's DATE(3) does not give one. */
  readonly timestamp?: string;
}
