import { describeTableShape, type TableShape } from '../../src/stores/sql/migrations/table-schema';
import { MIGRATIONS_TABLE, type DataLoss } from '../../src/stores/sql/migrations/migration';
import { SEARCH_REPAIRS_TABLE } from '../../src/stores/sql/migrations/search-repairs';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';

// Every migration of a database undoes cleanly: from an empty schema, each is applied in turn and the schema
// recorded after it; then each is undone, last first, and the schema must be what it was before that one
// ran. The first migration whose down throws, or leaves the schema otherwise, is named with what differs
// (a one-way hand migration is found here, not by whichever later step trips over what it left).

type Schema = Record<string, TableShape>;

async function schemaOf(database: SqlDatabase): Promise<Schema> {
  const queryInterface = database.queryInterface();
  const tables = ((await queryInterface.showAllTables()) as unknown[]).map((table) =>
    typeof table === 'string' ? table : String((table as { tableName: string }).tableName),
  );
  const schema: Schema = {};
  const kept = [MIGRATIONS_TABLE, SEARCH_REPAIRS_TABLE]; // the runner's records, not a migration's schema
  for (const table of tables.filter((name) => !kept.includes(name) && !name.startsWith('sqlite_')).sort()) {
    const shape = await describeTableShape(queryInterface, table);
    if (!shape) continue;
    schema[table] = {
      columns: Object.fromEntries(Object.entries(shape.columns).sort(([a], [b]) => a.localeCompare(b))),
      indexes: [...shape.indexes].sort((a, b) => a.name.localeCompare(b.name)),
      foreignKeys: [...shape.foreignKeys].sort((a, b) => a.column.localeCompare(b.column)),
    };
  }
  return schema;
}

/** What differs between two schemas, table by table, in words. */
function differences(expected: Schema, actual: Schema): string[] {
  const problems: string[] = [];
  for (const table of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    if (!(table in actual)) problems.push(`table ${table} is gone`);
    else if (!(table in expected)) problems.push(`table ${table} is left behind`);
    else if (JSON.stringify(expected[table]) !== JSON.stringify(actual[table]))
      problems.push(
        `table ${table} differs: expected ${JSON.stringify(expected[table])}, got ${JSON.stringify(actual[table])}`,
      );
  }
  return problems;
}

/** An earlier schema with what a one-way migration left (its tables as they are now where they differ from before it) carried into it. */
function carried(earlier: Schema, beforeOneWay: Schema, now: Schema): Schema {
  const result = { ...earlier };
  for (const [table, shape] of Object.entries(now))
    if (table in result && JSON.stringify(beforeOneWay[table]) !== JSON.stringify(shape))
      result[table] = patchColumns(result[table]!, beforeOneWay[table]!, shape);
  return result;
}

/** The columns a one-way migration changed, changed the same way in an earlier shape of the table. */
function patchColumns(earlier: TableShape, beforeOneWay: TableShape, now: TableShape): TableShape {
  const columns = { ...earlier.columns };
  for (const [name, column] of Object.entries(now.columns))
    if (name in columns && JSON.stringify(beforeOneWay.columns[name]) !== JSON.stringify(column))
      columns[name] = column;
  return { ...earlier, columns };
}

/**
 * The tables and columns a down dropped (in `ahead`, the schema before it ran, and not `now`) that it does not
 * declare in downDestroys. A column that gave way to one added in its place (a rename undone) and a shadow
 * whose field is still there (`_search`, `_folded`, `_bytes`: derived values) are no loss.
 */
function undeclaredLosses(ahead: Schema, now: Schema, declared: readonly DataLoss[]): string[] {
  const covers = (table: string, column?: string) =>
    declared.some(
      (loss) =>
        loss.table === table &&
        (loss.column === undefined ||
          (column !== undefined && (column === loss.column || column.startsWith(`${loss.column}_`)))),
    );
  const lost: string[] = [];
  for (const [table, shape] of Object.entries(ahead)) {
    if (!(table in now)) {
      if (!covers(table)) lost.push(`{ table: '${table}' }`);
      continue;
    }
    const after = now[table]!.columns;
    const gone = Object.keys(shape.columns).filter((column) => !(column in after));
    const added = Object.keys(after).filter((column) => !(column in shape.columns));
    const derived = (column: string) =>
      /_(search|folded|bytes)$/.test(column) && column.replace(/_(search|folded|bytes)$/, '') in after;
    const dropped = gone.filter((column) => !derived(column) && !covers(table, column));
    if (dropped.length > added.length)
      lost.push(...dropped.map((column) => `{ table: '${table}', column: '${column}' }`));
  }
  return lost;
}

/**
 * Undoes every applied migration, then applies and undoes each in turn as above; leaves every migration
 * applied. Throws naming the first migration that does not undo cleanly, or whose down drops a table or
 * column it does not declare in downDestroys (db:migrate down would then drop it over data without a word).
 */
export async function checkMigrationsUndo(database: SqlDatabase): Promise<string[]> {
  const migrator = database.migrator();
  const kept = new Set(
    migrator.migrations.filter((migration) => migration.keptOnDown).map((migration) => migration.name),
  );
  const undo = async (name?: string): Promise<number> => {
    try {
      return (await migrator.down({ allowDestructive: true })).length;
    } catch (error) {
      const failed = name ?? (error as { migration?: { name?: string } }).migration?.name ?? 'the last applied one';
      throw new Error(`migration '${failed}' does not undo: its down failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  };
  while ((await undo()) > 0);
  const before: Schema[] = [];
  const applied: string[] = [];
  for (;;) {
    const schema = await schemaOf(database);
    const [name] = await migrator.up(1);
    if (!name) break;
    before.push(schema);
    applied.push(name);
  }
  for (let index = applied.length - 1; index >= 0; index -= 1) {
    const name = applied[index]!;
    const ahead = await schemaOf(database);
    await undo(name);
    const declared = migrator.migrations.find((migration) => migration.name === name)?.downDestroys ?? [];
    const lost = undeclaredLosses(ahead, await schemaOf(database), declared);
    if (lost.length > 0)
      throw new Error(
        `migration '${name}' drops what it does not declare: add downDestroys: [${lost.join(', ')}] to it, so db:migrate down refuses while it holds data`,
      );
    const problems = differences(before[index]!, await schemaOf(database));
    // A declared one-way change: what it made stays, so the migrations before it are checked against that.
    if (problems.length > 0 && kept.has(name)) {
      const now = await schemaOf(database);
      for (let earlier = 0; earlier < index; earlier += 1)
        before[earlier] = carried(before[earlier]!, before[index]!, now);
      continue;
    }
    if (problems.length > 0)
      throw new Error(`migration '${name}' does not undo cleanly: after its down, ${problems.join('; ')}`);
  }
  await migrator.up();
  return applied;
}
