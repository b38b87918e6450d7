import type { QueryInterface } from 'sequelize';

// What a table is on the server, in the same terms on every relational engine: its columns (a broad type,
// nullability, the collation of string columns), its indexes (by columns, unique or not) and its foreign
// keys (with their on-delete rule). The start-up comparison (table-drift.ts) reads it against a resource's
// declaration; tests compare two tables with it (a renamed one and a freshly created one).

/** A column's kind, broadly: what a declared field can be stored as. */
export type BroadType = 'string' | 'text' | 'integer' | 'number' | 'boolean' | 'datetime' | (string & {});

export interface ColumnShape {
  type: BroadType;
  nullable: boolean;
  /** The collation name of a string column where the engine records one (null on SQLite: BINARY unless stated). */
  collation: string | null;
}

export interface IndexShape {
  name: string;
  columns: string[];
  unique: boolean;
}

export interface ForeignKeyShape {
  column: string;
  table: string;
  /** 'cascade', 'restrict' (NO ACTION and RESTRICT alike: both refuse the delete) or the engine's rule in lower case. */
  onDelete: string;
}

export interface TableShape {
  columns: Record<string, ColumnShape>;
  indexes: IndexShape[];
  foreignKeys: ForeignKeyShape[];
}

/** The broad type of a column type as the engines report it (VARCHAR(200), NVARCHAR(MAX), TINYINT(1), DATETIMEOFFSET…). */
export function broadType(reported: string): BroadType {
  const type = reported.toUpperCase();
  if (/BOOL|TINYINT\(1\)|^BIT$/.test(type)) return 'boolean';
  if (/TEXT|CLOB|\(MAX\)/.test(type)) return 'text';
  if (/CHAR/.test(type)) return 'string';
  if (/DOUBLE|FLOAT|REAL|NUMERIC|DECIMAL/.test(type)) return 'number';
  if (/INT/.test(type)) return 'integer';
  if (/TIME|DATE/.test(type)) return 'datetime';
  return reported.toLowerCase();
}

export function normalisedRule(rule: string): string {
  const words = rule.replace(/_/g, ' ').trim().toLowerCase();
  return words === 'no action' || words === 'restrict' ? 'restrict' : words;
}

type Rows = Record<string, unknown>[];

export async function select(
  queryInterface: QueryInterface,
  sql: string,
  replacements: Record<string, unknown> = {},
): Promise<Rows> {
  // type SELECT ('SELECT' is QueryTypes.SELECT, not imported: the kit loads no Sequelize on MongoDB): the rows alone, PRAGMAs too.
  return (await queryInterface.sequelize.query(sql, {
    replacements,
    logging: false,
    type: 'SELECT' as never,
  })) as unknown as Rows;
}

/** Column name → collation name, where the engine keeps one per column. */
async function collations(queryInterface: QueryInterface, table: string): Promise<Map<string, string | null>> {
  const sql: Record<string, string> = {
    postgres: `SELECT column_name AS "name", collation_name AS "collation" FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = :table`,
    mysql:
      'SELECT COLUMN_NAME AS `name`, COLLATION_NAME AS `collation` FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = :table',
    mssql:
      'SELECT c.name AS [name], c.collation_name AS [collation] FROM sys.columns c WHERE c.object_id = OBJECT_ID(:table)',
  };
  const dialect = queryInterface.sequelize.getDialect();
  const query = sql[dialect === 'mariadb' ? 'mysql' : dialect];
  if (!query) return new Map();
  return new Map(
    (await select(queryInterface, query, { table })).map((row) => [
      String(row.name),
      row.collation == null ? null : String(row.collation),
    ]),
  );
}

async function foreignKeys(queryInterface: QueryInterface, table: string): Promise<ForeignKeyShape[]> {
  const dialect = queryInterface.sequelize.getDialect();
  let rows: Rows;
  if (dialect === 'sqlite') {
    rows = (await select(queryInterface, `PRAGMA foreign_key_list(${queryInterface.quoteIdentifier(table)})`)).map(
      (row) => ({ column: row.from, target: row.table, rule: row.on_delete }),
    );
  } else if (dialect === 'postgres') {
    rows = await select(
      queryInterface,
      `SELECT kcu.column_name AS "column", ccu.table_name AS "target", rc.delete_rule AS "rule"
       FROM information_schema.referential_constraints rc
       JOIN information_schema.key_column_usage kcu ON kcu.constraint_schema = rc.constraint_schema AND kcu.constraint_name = rc.constraint_name
       JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_schema = rc.constraint_schema AND ccu.constraint_name = rc.constraint_name
       WHERE kcu.table_schema = current_schema() AND kcu.table_name = :table`,
      { table },
    );
  } else if (dialect === 'mssql') {
    rows = await select(
      queryInterface,
      `SELECT c.name AS [column], t.name AS [target], fk.delete_referential_action_desc AS [rule]
       FROM sys.foreign_keys fk
       JOIN sys.foreign_key_columns fkc ON fkc.constraint_object_id = fk.object_id
       JOIN sys.columns c ON c.object_id = fkc.parent_object_id AND c.column_id = fkc.parent_column_id
       JOIN sys.tables t ON t.object_id = fkc.referenced_object_id
       WHERE fk.parent_object_id = OBJECT_ID(:table)`,
      { table },
    );
  } else {
    rows = await select(
      queryInterface,
      'SELECT k.COLUMN_NAME AS `column`, k.REFERENCED_TABLE_NAME AS `target`, r.DELETE_RULE AS `rule` FROM information_schema.KEY_COLUMN_USAGE k ' +
        'JOIN information_schema.REFERENTIAL_CONSTRAINTS r ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME ' +
        'WHERE k.TABLE_SCHEMA = DATABASE() AND k.TABLE_NAME = :table AND k.REFERENCED_TABLE_NAME IS NOT NULL',
      { table },
    );
  }
  return rows.map((row) => ({
    column: String(row.column),
    table: String(row.target),
    onDelete: normalisedRule(String(row.rule)),
  }));
}

interface ShownIndex {
  name: string;
  primary?: boolean;
  unique?: boolean;
  fields?: { attribute?: string }[];
}

/** The table's indexes, its primary key and SQLite's automatic ones left out. */
export async function indexesOf(queryInterface: QueryInterface, table: string): Promise<IndexShape[]> {
  const shown = (await queryInterface.showIndex(table)) as ShownIndex[];
  return shown
    .filter((index) => !index.primary && !index.name.startsWith('sqlite_autoindex_') && index.name !== 'PRIMARY')
    .map((index) => ({
      name: index.name,
      columns: (index.fields ?? []).map((field) => String(field.attribute)),
      unique: Boolean(index.unique),
    }));
}

/** The table as the server has it, or undefined when there is no such table. */
export async function describeTableShape(
  queryInterface: QueryInterface,
  table: string,
): Promise<TableShape | undefined> {
  let described: Record<string, { type: string; allowNull: boolean }>;
  try {
    described = await queryInterface.describeTable(table);
  } catch {
    return undefined; // Sequelize: "No description found for table …"
  }
  if (Object.keys(described).length === 0) return undefined;
  const collated = await collations(queryInterface, table);
  const columns = Object.fromEntries(
    Object.entries(described).map(([name, column]) => {
      const type = broadType(column.type);
      return [
        name,
        {
          type,
          nullable: column.allowNull,
          collation: type === 'string' || type === 'text' ? (collated.get(name) ?? null) : null,
        },
      ];
    }),
  );
  return {
    columns,
    indexes: await indexesOf(queryInterface, table),
    foreignKeys: await foreignKeys(queryInterface, table),
  };
}
