import type { QueryInterface } from 'sequelize';
import { columnOf, foldedColumnOf, type FieldKind } from '../../kit/fields';
import { searchColumnOf } from '../../kit/shadows';
import { fieldEntries, type AnyResource, type Resource } from '../../kit/resource';
import { checkDifferences } from './check-drift';
import { binaryCollation } from './resource-columns';
import { describeTableShape, type TableShape } from './table-schema';

// The start-up comparison of a resource's table with its declaration: every column the fields need (name,
// broad type, nullability, the kit's binary collation on strings), no column the declaration does not know,
// each reference's index and foreign key with its on-delete rule, each unique key (per owner), each field's
// rules as a CHECK constraint (check-drift.ts). The list
// indexes are compared by list-index-steps.ts (missingListIndexes), which also names the command that
// writes them. Each difference comes back in words; start-up refuses to serve while there is any.

interface ExpectedColumn {
  column: string;
  kind: FieldKind;
  nullable: boolean;
}

const RECORD_COLUMNS: ExpectedColumn[] = [
  { column: 'id', kind: 'reference', nullable: false },
  { column: 'owner_id', kind: 'reference', nullable: false }, // ids: strings without the binary collation
  { column: 'created_at', kind: 'datetime', nullable: false },
  { column: 'updated_at', kind: 'datetime', nullable: false },
];

/** The columns a declaration needs: the record's own, each field's, the shadow of each case-insensitive string. */
function expectedColumns(resource: Resource): ExpectedColumn[] {
  const columns = [...RECORD_COLUMNS];
  for (const [, definition, column] of fieldEntries(resource)) {
    columns.push({ column, kind: definition.kind, nullable: definition.optional });
    if (definition.caseInsensitive)
      columns.push({ column: foldedColumnOf(column), kind: 'string', nullable: definition.optional });
  }
  // The `?q=` shadow of each searched field: its kind, always nullable (resource-columns.ts).
  for (const name of resource.search ?? [])
    columns.push({ column: searchColumnOf(columnOf(name)), kind: resource.fields[name]!.kind, nullable: true });
  return columns;
}

/** How a field kind is stored, broadly (a reference and the id are strings). */
const storedAs = (kind: FieldKind) => (kind === 'reference' ? 'string' : kind);

/** The collation name the kit's binary clause names (`utf8mb4_nopad_bin`, `C`…), or null on SQLite. */
async function expectedCollation(queryInterface: QueryInterface): Promise<string | null> {
  const clause = await binaryCollation(queryInterface);
  return /COLLATE "?(\w+)"?$/.exec(clause)?.[1] ?? null;
}

/** The unique keys' columns as addUniqueKey indexes them (owner first; a case-insensitive string by its shadow). */
function uniqueKeyColumns(resource: Resource): string[][] {
  return resource.unique.map((key) => [
    'owner_id',
    ...key.map((name) => (resource.fields[name]?.caseInsensitive ? foldedColumnOf(columnOf(name)) : columnOf(name))),
  ]);
}

function columnDifferences(shape: TableShape, expected: ExpectedColumn[], collation: string | null): string[] {
  const problems: string[] = [];
  for (const { column, kind, nullable } of expected) {
    const actual = shape.columns[column];
    if (!actual) {
      problems.push(`column ${column} is missing`);
      continue;
    }
    if (actual.type !== storedAs(kind))
      problems.push(`column ${column} is ${actual.type}, the declaration says ${kind}`);
    if (actual.nullable !== nullable)
      problems.push(
        `column ${column} ${actual.nullable ? 'allows' : 'refuses'} null, the field is ${nullable ? 'optional' : 'required'}`,
      );
    const collated = kind === 'string' || kind === 'text';
    if (collated && collation && actual.collation !== collation)
      problems.push(`column ${column} is collated ${actual.collation ?? 'by the table default'}, not ${collation}`);
  }
  const known = new Set(expected.map((column) => column.column));
  // SQL Server's unique keys index a persisted byte length of each string column beside it (addUniqueKey).
  for (const column of Object.keys(shape.columns))
    if (!known.has(column) && !(column.endsWith('_bytes') && known.has(column.slice(0, -6))))
      problems.push(`column ${column} is not in the declaration`);
  return problems;
}

function keyDifferences(shape: TableShape, resource: Resource): string[] {
  const problems: string[] = [];
  const startsWith = (columns: string[], prefix: string[]) =>
    prefix.every((column, index) => columns[index] === column);
  for (const key of uniqueKeyColumns(resource)) {
    const unique = shape.indexes.some(
      (index) =>
        index.unique &&
        startsWith(index.columns, key) &&
        index.columns.slice(key.length).every((column) => column.endsWith('_bytes')),
    );
    if (!unique) problems.push(`the unique key (${key.join(', ')}) is missing`);
  }
  const references = fieldEntries(resource).filter(([, definition]) => definition.references);
  for (const [, definition, column] of references) {
    const target = definition.references!.resource().table;
    const rule = definition.references!.onDelete;
    const foreignKey = shape.foreignKeys.find((key) => key.column === column);
    if (!foreignKey) problems.push(`column ${column} has no foreign key to ${target}`);
    else if (foreignKey.table !== target || foreignKey.onDelete !== rule)
      problems.push(
        `the foreign key of ${column} points at ${foreignKey.table} ON DELETE ${foreignKey.onDelete}, the declaration says ${target} ON DELETE ${rule}`,
      );
    if (!shape.indexes.some((index) => index.columns[0] === column))
      problems.push(`column ${column} has no index (its on-delete checks read one)`);
  }
  const referenceColumns = new Set(references.map(([, , column]) => column));
  for (const key of shape.foreignKeys)
    if (!referenceColumns.has(key.column))
      problems.push(`column ${key.column} has a foreign key to ${key.table} the declaration does not have`);
  return problems;
}

/** Each difference between the resource's table and its declaration, in words (empty when they agree). */
export async function tableDrift(queryInterface: QueryInterface, resource: AnyResource): Promise<string[]> {
  const shape = await describeTableShape(queryInterface, resource.table);
  if (!shape) return [`table ${resource.table} does not exist`];
  return [
    ...columnDifferences(shape, expectedColumns(resource), await expectedCollation(queryInterface)),
    ...keyDifferences(shape, resource),
    ...(await checkDifferences(queryInterface, resource)),
  ];
}
