import type { ModelAttributeColumnOptions, QueryInterface } from 'sequelize';
import type { FieldRules } from '../../kit/field-rules';
import { fold, foldedColumnOf } from '../../kit/fields';
import { addFieldCheck, replaceCheckConstraint } from './check-constraints';
import { ddlOf } from './engines/engine-ddl';
import { foldForSearch, searchColumnOf } from '../../kit/shadows';
import { dataTypesOf, millisecondTimestamp } from './column-types';
import { createListIndexes } from './list-index-steps';
import { createRecordTable } from './record-table';
import { createSearchIndex } from './search-index';
import { addIndexIfMissing } from './schema-steps';
import { addUniqueKey } from './unique-key';

// The columns of a resource's fields, as a migration writes them, spelled so that every engine compares
// strings alike: by code point, case-sensitive, with no trailing-space padding (docs/databases.md, "One
// meaning of equal"). Each builder returns the column(s) of one field, keyed by column name, to spread
// into createRecordTable or pass to addFieldColumns.

type Columns = Record<string, ModelAttributeColumnOptions>;

interface FieldColumnOptions<V = never> extends FieldRules {
  optional?: boolean;
  /** The column's DEFAULT: what a row gets when an insert leaves it out (the declaration's `default`). */
  default?: V;
}

/** string and text: `search` adds the shadow `<column>_search` that `?q=` matches (shadows.ts). */
interface TextColumnOptions extends FieldColumnOptions<string> {
  search?: boolean;
}

/** The column options built as search shadows: createResourceTable gives them their substring index (search-index.ts). */
const searchShadows = new WeakSet<ModelAttributeColumnOptions>();

/** The binary (code point) collation clause of the connection's engine (engines/<engine>-types.ts). */
export function binaryCollation(queryInterface: QueryInterface): Promise<string> {
  return ddlOf(queryInterface.sequelize.getDialect()).types.binaryCollation(queryInterface);
}

/** The column builders of one migration's connection. */
export async function fieldColumns(queryInterface: QueryInterface) {
  const DataTypes = dataTypesOf(queryInterface);
  const { types } = ddlOf(queryInterface.sequelize.getDialect());
  const collation = await types.binaryCollation(queryInterface);
  const textDefaults = await types.textDefaults(queryInterface);
  const column = <V>(
    type: ModelAttributeColumnOptions['type'],
    options: FieldColumnOptions<V>,
  ): ModelAttributeColumnOptions => {
    const spec = {
      type,
      allowNull: options.optional ?? false,
      ...(options.default === undefined ? {} : { defaultValue: options.default }),
    };
    const { enum: allowed, minimum, maximum, minLength, pattern } = options;
    const rules = Object.fromEntries(
      Object.entries({ enum: allowed, minimum, maximum, minLength, pattern }).filter(
        ([, value]) => value !== undefined,
      ),
    ) as FieldRules;
    if (Object.keys(rules).length > 0) columnRules.set(spec, rules);
    return spec;
  };
  const varchar = (length: number) => types.string(length, collation);
  /** The column and its search shadow (same type; its DEFAULT folded like the values the store writes). */
  const searchable = (name: string, type: string, options: TextColumnOptions): Columns => {
    const columns: Columns = { [name]: column(type, options) };
    // Always nullable: added later to a table with rows (addSearchColumn), it is filled after it exists; the store writes it with the field.
    if (options.search) {
      const shadow = column(type, {
        optional: true,
        default: options.default === undefined ? undefined : foldForSearch(options.default),
      });
      searchShadows.add(shadow);
      columns[searchColumnOf(name)] = shadow;
    }
    return columns;
  };
  return {
    /** A short string; `caseInsensitive` adds its lower-cased shadow `<column>_folded`, kept by the store; `search` its `<column>_search`. */
    string(name: string, options: TextColumnOptions & { maxLength?: number; caseInsensitive?: boolean } = {}): Columns {
      const type = varchar(options.maxLength ?? 200);
      const columns = searchable(name, type, options);
      if (options.caseInsensitive)
        columns[foldedColumnOf(name)] = column(type, {
          optional: options.optional,
          default: options.default === undefined ? undefined : fold(options.default),
        });
      return columns;
    },
    text: (name: string, options: TextColumnOptions = {}): Columns =>
      searchable(name, types.text(collation), textDefaults ? options : { ...options, default: undefined }),
    integer: (name: string, options: FieldColumnOptions<number> = {}): Columns => ({
      [name]: column(DataTypes.INTEGER, options),
    }),
    number: (name: string, options: FieldColumnOptions<number> = {}): Columns => ({
      [name]: column(DataTypes.DOUBLE, options),
    }),
    boolean: (name: string, options: FieldColumnOptions<boolean> = {}): Columns => ({
      [name]: column(DataTypes.BOOLEAN, options),
    }),
    datetime: (name: string, options: FieldColumnOptions<Date> = {}): Columns => ({
      [name]: column(millisecondTimestamp(queryInterface), options),
    }),
    /**
     * The id of a record of `table`, a foreign key. 'restrict' is NO ACTION (checked at the end of the
     * statement; SQL Server has no RESTRICT), 'cascade' deletes the row with the record it points at.
     */
    reference(
      name: string,
      table: string,
      options: Omit<FieldColumnOptions, 'default'> & { onDelete?: 'restrict' | 'cascade' } = {},
    ): Columns {
      return {
        [name]: {
          ...column(DataTypes.STRING(36), options),
          references: { model: table, key: 'id' },
          onDelete: options.onDelete === 'cascade' ? 'CASCADE' : 'NO ACTION',
          onUpdate: 'NO ACTION',
        },
      };
    },
  };
}

type ColumnBuilders = Awaited<ReturnType<typeof fieldColumns>>;

/** The rules a builder was given for a column (held by the CHECK constraint added after the column: check-constraints.ts). */
const columnRules = new WeakMap<ModelAttributeColumnOptions, FieldRules>();

/** Adds the CHECK constraint of each built column that has rules. */
export async function addColumnChecks(queryInterface: QueryInterface, table: string, columns: Columns): Promise<void> {
  for (const [name, spec] of Object.entries(columns)) {
    const rules = columnRules.get(spec);
    if (rules) await replaceCheckConstraint(queryInterface, table, name, rules);
  }
}

/**
 * Creates a resource's table (createRecordTable: id, owner, timestamps, the owner's list index) with the
 * columns `columns` builds, the index of each reference, each unique key (per owner; addUniqueKey) and the
 * list indexes its sorts and filters need (`indexes`: column lists, as the generator writes them out from
 * the declaration; start-up refuses a table lacking one, see list-index-steps.ts), the substring index of
 * the search shadows it built (search-index.ts: table-wide, and per owner with `searchPerOwner: true` as the
 * generator writes it), and the CHECK constraint of each check across columns (`checks: ['ends_at >
 * starts_at']`, check-constraints.ts).
 */
export async function createResourceTable(
  queryInterface: QueryInterface,
  table: string,
  columns: (c: ColumnBuilders) => Columns,
  options: {
    unique?: readonly (readonly string[])[];
    indexes?: readonly (readonly string[])[];
    checks?: readonly string[];
    searchPerOwner?: boolean;
  } = {},
): Promise<void> {
  const built = columns(await fieldColumns(queryInterface));
  await createRecordTable(queryInterface, table, built);
  await addColumnChecks(queryInterface, table, built);
  await indexReferences(queryInterface, table, built);
  for (const key of options.unique ?? []) await addUniqueKey(queryInterface, table, key);
  await createListIndexes(queryInterface, table, options.indexes ?? []);
  await createSearchIndex(
    queryInterface,
    table,
    Object.keys(built).filter((name) => searchShadows.has(built[name]!)),
    { perOwner: options.searchPerOwner },
  );
  for (const check of options.checks ?? []) await addFieldCheck(queryInterface, table, check);
}

/**
 * Adds a field's column(s) to a table that may hold rows (what `npm run new:field` writes): rows there read
 * the field as null; references get the index their on-delete checks read, a search shadow its substring
 * indexes as createResourceTable builds them (in the migration's transaction: over a column just added, empty
 * or holding its default).
 */
export async function addFieldColumns(
  queryInterface: QueryInterface,
  table: string,
  columns: (c: ColumnBuilders) => Columns,
  options: { searchPerOwner?: boolean } = {},
): Promise<void> {
  const built = columns(await fieldColumns(queryInterface));
  const existing = await queryInterface.describeTable(table);
  for (const [name, spec] of Object.entries(built)) {
    if (name in existing) continue; // a retry after a half-applied run (MySQL DDL is not transactional)
    await queryInterface.addColumn(table, name, spec);
    if (spec.references) await addIndexIfMissing(queryInterface, table, [name], `${table}_${name}`);
  }
  await addColumnChecks(queryInterface, table, built);
  await createSearchIndex(
    queryInterface,
    table,
    Object.keys(built).filter((name) => searchShadows.has(built[name]!)),
    { perOwner: options.searchPerOwner },
  );
}

/** Indexes the reference columns of a new table: PostgreSQL and SQL Server do not index a foreign key themselves. */
export async function indexReferences(queryInterface: QueryInterface, table: string, columns: Columns): Promise<void> {
  for (const [name, spec] of Object.entries(columns))
    if (spec.references) await addIndexIfMissing(queryInterface, table, [name], `${table}_${name}`);
}
