// npm run new:indexes -- <module> [--dry-run]
// Writes the migration that adds the list indexes a kit module's declaration needs and its migrations do
// not create yet (after adding a sort key or a filter to the declaration by hand, or for a module generated
// before list indexes were derived): the module's migrations run on an in-memory SQLite database, the
// declaration's indexes are compared with what they made (the start-up check's comparison), and the
// missing ones are written out, frozen, as `000N-add-list-indexes.ts`, built online on a table with rows.
// With them, the trigram indexes (table-wide, per owner) of each searched field's shadow that no migration of
// the module builds (PostgreSQL only, a no-op elsewhere).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { columnOf } from '../../src/stores/kit/fields';
import { resourceStore } from '../../src/stores/kit/resource-definition';
import { searchColumnOf } from '../../src/stores/kit/shadows';
import type { AnyResource } from '../../src/stores/kit/resource';
import { missingListIndexes } from '../../src/stores/sql/migrations/list-index-steps';
import {
  observeSearchIndexes,
  type SearchIndexShape,
  type SearchIndexStep,
} from '../../src/stores/sql/migrations/search-index';
import { SqlDatabase } from '../../src/stores/sql/sql-database';
import { write } from './generate';
import { SpecError } from './field-spec';
import { checkModuleName, moduleNames } from './spec';
import { declaredMigrations } from './declaration';
import { declarationFile, nextMigrationNumber, withMigration, type PlannedFile } from './source-edits';

const USAGE = 'usage: npm run new:indexes -- <module> [--dry-run]\n  e.g.   npm run new:indexes -- notes';

/** What a module's migrations leave out of its declaration's indexes. */
interface Missing {
  /** List index columns no migration creates. */
  indexes: string[][];
  /** Search shadows no migration indexes, by shape. */
  shadows: Record<SearchIndexShape, string[]>;
}

/** Each search shadow's index shapes once the observed steps have run, in order. */
function shapesAfter(steps: readonly SearchIndexStep[]): Map<string, Set<SearchIndexShape>> {
  const shapes = new Map<string, Set<SearchIndexShape>>();
  for (const step of steps)
    step.columns.forEach((column, index) => {
      const known = shapes.get(column) ?? new Set<SearchIndexShape>();
      if (step.action === 'build') known.add(step.shape);
      else if (step.action === 'drop') known.delete(step.shape);
      else shapes.delete(column);
      if (step.action === 'rename-column') shapes.set(step.to[index]!, known);
      else if (step.action !== 'drop-column') shapes.set(column, known);
    });
  return shapes;
}

/**
 * What the module's migrations leave out, found on a scratch in-memory SQLite database: the declaration's list
 * index columns they do not create, and its search shadows' index steps (told by the search-index steps as they
 * run: SQLite builds no such index, so its schema cannot say).
 */
async function missingIndexes(resource: AnyResource): Promise<Missing> {
  const database = new SqlDatabase(
    {
      url: 'sqlite::memory:',
      engine: 'sqlite',
      timeoutMs: 10_000,
      migrationTimeoutMs: 60_000,
      connectAttempts: 1,
      cleanupIntervalMs: 0,
      stores: [resourceStore(resource)],
    },
    pino({ level: 'silent' }),
  );
  const steps: SearchIndexStep[] = [];
  const stop = observeSearchIndexes(database.queryInterface(), (step) => {
    if (step.table === resource.table) steps.push(step);
  });
  try {
    await database.connect();
    await database.migrate();
    const indexes = (await missingListIndexes(database.queryInterface(), resource)).map(({ columns }) => columns);
    const shapes = shapesAfter(steps);
    const searched = resource.search.map((name) => searchColumnOf(columnOf(name)));
    const lacking = (shape: SearchIndexShape) => searched.filter((column) => !shapes.get(column)?.has(shape));
    return { indexes, shadows: { 'table-wide': lacking('table-wide'), 'per-owner': lacking('per-owner') } };
  } finally {
    stop();
    await database.close();
  }
}

/** What the migration does: its up's and down's steps, and the imports they need. */
function migrationSteps(table: string, { indexes, shadows }: Missing) {
  const columns = (names: string[]) => `[${names.map((column) => `'${column}'`).join(', ')}]`;
  const tableWide = shadows['table-wide'];
  const perOwner = shadows['per-owner'];
  const up = [
    ...(indexes.length > 0 ? [`addListIndexes(queryInterface, '${table}', indexes)`] : []),
    ...(tableWide.length > 0 ? [`addSearchIndex(queryInterface, '${table}', ${columns(tableWide)})`] : []),
    ...(perOwner.length > 0
      ? [`addSearchIndex(queryInterface, '${table}', ${columns(perOwner)}, { searchIndex: 'per-owner' })`]
      : []),
  ];
  // The table-wide trigram index stays on the way down: a table whose first migration built its searched columns
  // has it from there (this up then finds it and adds nothing), and an index the up did add costs nothing to keep.
  // The per-owner one goes: no migration before this one builds it.
  const down = [
    ...(perOwner.length > 0
      ? [
          `removeSearchIndex(queryInterface, '${table}', ${columns(perOwner)}, { searchIndex: 'per-owner', online: true })`,
        ]
      : []),
    ...(indexes.length > 0 ? [`removeListIndexes(queryInterface, '${table}', indexes)`] : []),
  ];
  const imports = [
    ...(indexes.length > 0 ? ['addListIndexes', 'removeListIndexes'] : []),
    ...(tableWide.length > 0 || perOwner.length > 0 ? ['addSearchIndex'] : []),
    ...(perOwner.length > 0 ? ['removeSearchIndex'] : []),
  ];
  const chain = (steps: string[]) =>
    steps.length === 0
      ? 'Promise.resolve()'
      : `${steps[0]!}${steps
          .slice(1)
          .map((step) => `.then(() => ${step})`)
          .join('')}`;
  return { up: chain(up), down: chain(down), imports: imports.join(', ') };
}

function migrationText(module: string, table: string, number: string, constant: string, missing: Missing): string {
  const { indexes, shadows } = missing;
  const list = indexes.map((columns) => `  [${columns.map((column) => `'${column}'`).join(', ')}],`).join('\n');
  const steps = migrationSteps(table, missing);
  const what = [
    ...(indexes.length > 0 ? [`the list indexes ${table} lacked for its declared sorts and filters`] : []),
    ...(shadows['table-wide'].length > 0 ? [`the trigram index of ${shadows['table-wide'].join(', ')} for ?q=`] : []),
    ...(shadows['per-owner'].length > 0
      ? [`the per-owner trigram index of ${shadows['per-owner'].join(', ')} for ?q=`]
      : []),
  ].join('; ');
  const declared = indexes.length > 0 ? `const indexes: string[][] = [\n${list}\n];\n\n` : '';
  return `import { ${steps.imports}, type SqlMigration } from '../../kit';

// ${what[0]!.toUpperCase()}${what.slice(1)}: built without blocking writes where the engine can
// (outside a transaction: PostgreSQL builds CONCURRENTLY). Never edit once run.
${declared}export const ${constant}: SqlMigration = {
  name: '${module}-${number}-add-list-indexes',
  transaction: false,
  up: (queryInterface) => ${steps.up},
  down: (queryInterface) => ${steps.down},
};
`;
}

/** The migration adding the missing list indexes and the declaration listing it, or nothing when none is missing. */
export async function planIndexes(root: string, module: string | undefined): Promise<PlannedFile[]> {
  checkModuleName(module);
  const file = declarationFile(root, module);
  const source = readFileSync(path.join(root, file), 'utf8');
  declaredMigrations(source, file);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the module's declaration, as the service loads it
  const exported = require(path.join(root, file)) as Record<string, unknown>;
  const resource = Object.values(exported).find(
    (value): value is AnyResource =>
      typeof value === 'object' && value !== null && 'table' in value && 'fields' in value,
  );
  if (!resource) throw new SpecError(`${file} exports no resource (defineResource)`);
  const missing = await missingIndexes(resource);
  if (missing.indexes.length === 0 && Object.values(missing.shadows).every((shadows) => shadows.length === 0))
    return [];
  const folder = `src/modules/${module}/migrations`;
  const number = nextMigrationNumber(root, module!);
  const constant = `addListIndexes${number}`;
  const migration = `${number}-add-list-indexes`;
  const edited = withMigration(source, constant, migration);
  return [
    {
      path: `${folder}/${migration}.ts`,
      content: migrationText(module!, moduleNames(module!).table, number, constant, missing),
      edit: false,
    },
    { path: file, content: edited, edit: true },
  ];
}

async function main(argv: string[]): Promise<number> {
  const dryRun = argv.includes('--dry-run');
  const [module, ...rest] = argv.filter((argument) => argument !== '--dry-run');
  try {
    if (rest.length > 0) throw new SpecError(`unexpected ${rest.join(' ')}`);
    const files = await planIndexes(process.cwd(), module);
    if (files.length === 0) {
      process.stdout.write(
        `new:indexes: ${module}'s migrations create every index its declaration needs; nothing to write\n`,
      );
      return 0;
    }
    if (dryRun) {
      process.stdout.write(
        `would write (dry run, nothing written):\n${files.map((f) => `  ${f.edit ? 'edit  ' : 'create'} ${f.path}`).join('\n')}\n`,
      );
      return 0;
    }
    write(process.cwd(), files);
    process.stdout.write(
      `${files.map((f) => `${f.edit ? 'edited ' : 'created'} ${f.path}`).join('\n')}\nnext: make test, then run the migrations (the service does at start-up)\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    process.stderr.write(`new:indexes: ${error.message}; nothing was written\n${USAGE}\n`);
    return 2;
  }
}

if (require.main === module) void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
