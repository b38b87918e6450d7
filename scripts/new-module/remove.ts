// npm run remove:module -- <name> [--dry-run]
// Removes a kit module: its routes, declaration and tests go; its migrations stay, moved under
// src/modules/removed/<name>/migrations/ with a last one that drops its table (and its MongoDB collection),
// all registered by the `removed-modules` store (src/modules/removed/index.ts, listed in the registry), so a
// database that ran them keeps a history that matches the code, a fresh one builds and drops the table in
// turn, and the drop undoes by building the table again (empty) from those migrations. Refused while
// another module's resource points at it (the refusal names the modules to remove first, in order).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { write } from './generate';
import { SpecError } from './field-spec';
import { checkModuleName, moduleNames } from './spec';
import ts from 'typescript';
import { declaredFields, declaredMigrations } from './declaration';
import { declarationFile, nextMigrationNumber, withImport, type PlannedFile } from './source-edits';
import {
  appendElement,
  constantArray,
  findNode,
  namedImports,
  parse,
  removeElement,
  withoutImport,
} from './syntax-tree';

const USAGE = 'usage: npm run remove:module -- <name> [--dry-run]\n  e.g.   npm run remove:module -- tags';
const REGISTRY = 'src/modules/index.ts';
const REMOVED = 'src/modules/removed';

export interface Removal {
  files: PlannedFile[];
  /** Folders deleted (the module's and its tests'), after the files are written. */
  deleted: string[];
}

/** The kit modules under src/modules (each folder with a resource.ts), but `except`. */
function kitModules(root: string, except?: string): string[] {
  const folder = path.join(root, 'src/modules');
  return readdirSync(folder).filter(
    (other) => other !== except && other !== 'removed' && existsSync(path.join(folder, other, 'resource.ts')),
  );
}

/** The other kit modules' fields that point at `module`: module → its referencing fields. */
function referrers(root: string, module: string): Map<string, string[]> {
  const pointing = new Map<string, string[]>();
  for (const other of kitModules(root, module)) {
    const file = `src/modules/${other}/resource.ts`;
    const fields = declaredFields(readFileSync(path.join(root, file), 'utf8'), file).filter(
      (field) => field.reference?.module === module,
    );
    if (fields.length > 0)
      pointing.set(
        other,
        fields.map((field) => field.name),
      );
  }
  return pointing;
}

/** Every module that points at `module`, directly or through others, each after those that point at it: the order to remove them in. */
function removalOrder(root: string, module: string, seen = new Set<string>([module])): string[] {
  const order: string[] = [];
  for (const other of referrers(root, module).keys()) {
    if (seen.has(other)) continue;
    seen.add(other);
    order.push(...removalOrder(root, other, seen), other);
  }
  return order;
}

/** The refusal of removing a module others point at, naming what to remove (or drop) first. */
function refusal(root: string, module: string, pointing: Map<string, string[]>): SpecError {
  const [first, fields] = [...pointing][0]!;
  const order = removalOrder(root, module);
  const who = [...pointing].map(([other, names]) => `${other} (${names.join(', ')})`).join(', ');
  const steps = order.map((other) => `npm run remove:module -- ${other}`).join('; ');
  return new SpecError(
    `module${pointing.size > 1 ? 's' : ''} ${who} point${pointing.size > 1 ? '' : 's'} at '${module}': ${order.length > 1 ? 'remove these first, in this order' : 'remove it first'}: ${steps}; ` +
      `or keep ${first} and drop its reference: npm run new:field -- ${first} ${fields[0]} --drop`,
  );
}

/** The tables a module's migrations point foreign keys at (`c.reference('note', 'notes')`), its own left out. */
function referencedTables(migrations: string[], own: string): string[] {
  const tables = migrations.flatMap((text) =>
    [...text.matchAll(/\breference\(\s*'[^']*',\s*'([a-z0-9_]+)'/g)].map((match) => match[1]!),
  );
  return [...new Set(tables)].filter((table) => table !== own);
}

/** The exported resource constant of a module's resource.ts (`notesResource`). */
function resourceConstant(root: string, module: string): string {
  const file = parse(readFileSync(path.join(root, `src/modules/${module}/resource.ts`), 'utf8'));
  const declared = findNode(
    file,
    (node): node is ts.VariableDeclaration =>
      ts.isVariableDeclaration(node) &&
      node.initializer !== undefined &&
      ts.isCallExpression(node.initializer) &&
      node.initializer.expression.getText() === 'defineResource',
  );
  return declared?.name.getText() ?? moduleNames(module).resource;
}

/**
 * The registry of removed modules' histories. Its migrations run after the stores of the live modules those
 * histories point at (dependsOn), and in the order removedMigrations gives (every table built before the tables
 * pointing at it, dropped after them), whatever the order the modules were removed in.
 */
function removedIndex(root: string, modules: string[], removing: string): string {
  const history = (name: string) => `${moduleNames(name).camel}History`;
  const tables = new Set(modules.map((name) => moduleNames(name).table));
  const live = new Map(kitModules(root, removing).map((name) => [moduleNames(name).table, name]));
  const referenced = modules.flatMap((name) => historyReferences(root, name, removing));
  const depended = [
    ...new Set(referenced.filter((table) => !tables.has(table) && live.has(table)).map((table) => live.get(table)!)),
  ];
  const resources = depended.map((name) => ({ name, constant: resourceConstant(root, name) }));
  return `import { defineModule, defineStore, removedMigrations${resources.length > 0 ? ', resourceStore' : ''} } from '../kit';
${resources.map(({ name, constant }) => `import { ${constant} } from '../${name}/resource';\n`).join('')}${modules.map((name) => `import { ${history(name)} } from './${name}';\n`).join('')}
// The migrations of the modules removed with \`npm run remove:module\`, each module's ending with the one that
// drops its table: kept and registered so that every database's history matches the code (docs/modules.md,
// "Removing a module"). Written by remove:module; the module has no routes.
const removedModulesStore = defineStore({
  name: 'removed-modules',
  migrations: removedMigrations([${modules.map(history).join(', ')}]),${resources.length > 0 ? `\n  // Their tables point at these modules' tables: those are built first.\n  dependsOn: [${resources.map(({ constant }) => `resourceStore(${constant})`).join(', ')}],` : ''}
  relational: () => ({}),
  mongodb: () => ({}),
});

export const removedModules = defineModule([removedModulesStore], () => ({ name: 'removed-modules', description: 'No routes: the schema history of removed modules', routes: [] }));
`;
}

/** The tables a removed module's migrations point at, read from its history's folder (or, being removed, its own). */
function historyReferences(root: string, module: string, removing: string): string[] {
  const folder = module === removing ? `src/modules/${module}/migrations` : `${REMOVED}/${module}/migrations`;
  const texts = readdirSync(path.join(root, folder))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => readFileSync(path.join(root, folder, name), 'utf8'));
  return referencedTables(texts, moduleNames(module).table);
}

export function planRemoval(root: string, module: string | undefined): Removal {
  checkModuleName(module);
  const folder = `src/modules/${module}`;
  const file = declarationFile(root, module);
  const pointing = referrers(root, module!);
  if (pointing.size > 0) throw refusal(root, module!, pointing);
  if (existsSync(path.join(root, REMOVED, module!))) throw new SpecError(`${REMOVED}/${module} exists already`);
  const source = readFileSync(path.join(root, file), 'utf8');
  const listed = declaredMigrations(source, file);
  if (listed.length === 0) throw new SpecError(`${file}: cannot find its 'migrations: [ … ]' list`);
  const imports = new Map<string, string>();
  for (const { constant, from } of listed) {
    const migration = /^\.\/migrations\/([\w-]+)$/.exec(from ?? '')?.[1];
    if (!migration) throw new SpecError(`${file}: cannot find where migration ${constant} is imported from`);
    imports.set(constant, migration);
  }
  const constants = [...imports.keys()];
  const { table, camel } = moduleNames(module!);
  const target = `${REMOVED}/${module}`;
  const files: PlannedFile[] = [];
  // Moved one folder deeper: imports that climb out of the module climb one more level.
  for (const migration of new Set(imports.values())) {
    const text = readFileSync(path.join(root, folder, 'migrations', `${migration}.ts`), 'utf8').replace(
      /from '\.\.\/\.\.\//g,
      "from '../../../",
    );
    files.push({ path: `${target}/migrations/${migration}.ts`, content: text, edit: false });
  }
  const number = nextMigrationNumber(root, module!);
  const removal = `remove${camel[0]!.toUpperCase()}${camel.slice(1)}`;
  files.push({
    path: `${target}/migrations/${number}-remove-module.ts`,
    content: `import type { SqlMigration } from '../../../kit';
${constants.map((name) => `import { ${name} } from './${imports.get(name)}';\n`).join('')}
// The ${module} module was removed (npm run remove:module): its table goes, with its indexes and keys; MongoDB's
// collection too. Undone, the table comes back empty, built again by the module's own migrations. Outside a
// transaction: those may build indexes online (PostgreSQL's CONCURRENTLY refuses one). It destroys the rows:
// start-up does not run it; after a backup, npm run db:migrate -- up --allow-destructive. Never edit once run.
export const ${removal}: SqlMigration = {
  name: '${module}-${number}-remove-module',
  transaction: false,
  up: (queryInterface) => queryInterface.dropTable('${table}'),
  destroys: [{ table: '${table}' }],
  down: async (queryInterface) => {
    for (const migration of [${constants.join(', ')}]) await migration.up(queryInterface);
  },
  documents: { collection: '${table}', drop: true },
};
`,
    edit: false,
  });
  const references = historyReferences(root, module!, module!);
  files.push({
    path: `${target}/index.ts`,
    content: `import type { RemovedHistory } from '../../kit';
${constants.map((name) => `import { ${name} } from './migrations/${imports.get(name)}';\n`).join('')}import { ${removal} } from './migrations/${number}-remove-module';

/** The removed ${module} module's history: its migrations in their order, then the one that removed it. */
export const ${camel}History: RemovedHistory = {
  table: '${table}',
  references: [${references.map((name) => `'${name}'`).join(', ')}],
  migrations: [${constants.join(', ')}],
  removal: ${removal},
};
`,
    edit: false,
  });
  // Listed in the order they were removed; removedMigrations orders what a fresh database runs.
  const index = path.join(root, REMOVED, 'index.ts');
  const earlier = existsSync(index)
    ? [...namedImports(parse(readFileSync(index, 'utf8'))).values()].flatMap(
        (from) => /^\.\/([a-z0-9-]+)$/.exec(from)?.[1] ?? [],
      )
    : [];
  files.push({
    path: `${REMOVED}/index.ts`,
    content: removedIndex(root, [...earlier, module!], module!),
    edit: existsSync(index),
  });
  files.push({
    path: REGISTRY,
    content: registryWithout(readFileSync(path.join(root, REGISTRY), 'utf8'), module!),
    edit: true,
  });
  return { files, deleted: [folder, `test/modules/${module}`].filter((name) => existsSync(path.join(root, name))) };
}

/** The registry without the module, with the removed modules' store listed (once). */
function registryWithout(source: string, module: string): string {
  const factory = `${moduleNames(module).camel}Module`;
  const list = constantArray(parse(source), 'modules');
  if (!list) throw new SpecError(`${REGISTRY}: cannot find 'export const modules: ModuleFactory[] = [...]'`);
  const listed = list.elements.find((element) => element.getText() === factory);
  let edited = listed ? removeElement(source, list, listed) : source;
  edited = withoutImport(edited, factory);
  const after = constantArray(parse(edited), 'modules')!;
  if (!after.elements.some((element) => element.getText() === 'removedModules'))
    edited = appendElement(edited, after, 'removedModules');
  return namedImports(parse(edited)).has('removedModules')
    ? edited
    : withImport(edited, "import { removedModules } from './removed';");
}

function main(argv: string[]): number {
  const dryRun = argv.includes('--dry-run');
  const [module, ...rest] = argv.filter((argument) => argument !== '--dry-run');
  try {
    if (rest.length > 0) throw new SpecError(`unexpected ${rest.join(' ')}`);
    const { files, deleted } = planRemoval(process.cwd(), module);
    const listing = [
      ...files.map((f) => `${f.edit ? 'edit  ' : 'create'} ${f.path}`),
      ...deleted.map((folder) => `delete ${folder}/`),
    ];
    if (dryRun) {
      process.stdout.write(`would (dry run, nothing written):\n${listing.map((line) => `  ${line}`).join('\n')}\n`);
      return 0;
    }
    write(process.cwd(), files);
    for (const folder of deleted) rmSync(path.join(process.cwd(), folder), { recursive: true, force: true });
    // The committed API document follows the routes (make lint fails while it is stale).
    if (existsSync('src/cli/openapi.ts')) {
      const openapi = spawnSync(process.execPath, [require.resolve('tsx/cli'), 'src/cli/openapi.ts'], {
        stdio: 'inherit',
      });
      if (openapi.status !== 0)
        process.stderr.write(
          'remove:module: the files are written, but `npm run openapi` failed: run it after fixing the error above\n',
        );
    }
    // What start-up will do: the drop is a destructive migration, run alone only on an empty table.
    process.stdout.write(
      `${listing.join('\n')}\nnext: make test. At the next start the migrations drop the table if it holds no rows; if it holds rows, start-up ` +
        'refuses, naming it: back them up, then `npm run db:migrate -- up --allow-destructive` drops it (docs/modules.md, "Removing a module")\n',
    );
    return 0;
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    process.stderr.write(`remove:module: ${error.message}; nothing was written\n${USAGE}\n`);
    return 2;
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
