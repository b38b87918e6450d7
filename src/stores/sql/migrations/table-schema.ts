import type { QueryInterface } from 'sequelize';
import { ddlOf } from './engines/engine-ddl';
import { indexesOf, type IndexShape } from './indexes-of';

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

/** Column name → collation name, where the engine keeps one per column. */
function collations(queryInterface: QueryInterface, table: string): Promise<Map<string, string | null>> {
  return ddlOf(queryInterface.sequelize.getDialect()).catalog.collations(queryInterface, table);
}

async function foreignKeys(queryInterface: QueryInterface, table: string): Promise<ForeignKeyShape[]> {
  const shown = await ddlOf(queryInterface.sequelize.getDialect()).catalog.foreignKeys(queryInterface, table);
  return shown.map((row) => ({
    column: String(row.column),
    table: String(row.target),
    onDelete: normalisedRule(String(row.rule)),
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
