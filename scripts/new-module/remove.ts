// npm run remove:module -- <name> [--dry-run]
// Removes a kit module: its routes, declaration and tests go; its migrations stay, moved under
// src/modules/removed/<name>/migrations/ with a last one that drops its table (and its MongoDB collection),
// all registered by the `removed-modules` store (src/modules/removed/index.ts, listed in the registry), so a
// database that ran them keeps a history that matches the code, a fresh one builds and drops the table in
// turn, and the drop undoes by building the table again (empty) from those migrations. Refused while
// another module's resource points at it.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { write, type PlannedFile } from './generate';
import { checkModuleName, moduleNames, SpecError } from './spec';
import { declarationFile, MIGRATIONS_LIST, withImport } from './source-edits';

const USAGE = 'usage: npm run remove:module -- <name> [--dry-run]\n  e.g.   npm run remove:module -- tags';
const REGISTRY = 'src/modules/index.ts';
const REGISTRY_LIST = /(export const modules: ModuleFactory\[\] = \[)([^\]]*)(\];)/;
const REMOVED = 'src/modules/removed';

export interface Removal {
  files: PlannedFile[];
  /** Folders deleted (the module's and its tests'), after the files are written. */
  deleted: string[];
}

/** The other kit modules whose resource imports this one's (their references point at it). */
function referrers(root: string, module: string): string[] {
  const folder = path.join(root, 'src/modules');
  return readdirSync(folder).filter((other) => other !== module && existsSync(path.join(folder, other, 'resource.ts')) && readFileSync(path.join(folder, other, 'resource.ts'), 'utf8').includes(`from '../${module}/resource'`));
}

/** The registry of removed modules' migrations, from the folders under src/modules/removed/. */
function removedIndex(modules: string[]): string {
  const camel = (name: string) => moduleNames(name).camel;
  return `import { defineModule, defineStore } from '../kit';
${modules.map((name) => `import { ${camel(name)}Migrations } from './${name}';\n`).join('')}
// The migrations of the modules removed with \`npm run remove:module\`, each module's ending with the one that
// drops its table: kept and registered so that every database's history matches the code (docs/modules.md,
// "Removing a module"). Written by remove:module; the module has no routes.
const removedModulesStore = defineStore({
  name: 'removed-modules',
  migrations: [${modules.map((name) => `...${camel(name)}Migrations`).join(', ')}],
  relational: () => ({}),
  mongodb: () => ({}),
});

export const removedModules = defineModule([removedModulesStore], () => ({ name: 'removed-modules', description: 'No routes: the schema history of removed modules', routes: [] }));
`;
}

export function planRemoval(root: string, module: string | undefined): Removal {
  checkModuleName(module);
  const folder = `src/modules/${module}`;
  const file = declarationFile(root, module);
  const pointing = referrers(root, module!);
  if (pointing.length > 0) throw new SpecError(`module${pointing.length > 1 ? 's' : ''} ${pointing.join(', ')} point${pointing.length > 1 ? '' : 's'} at '${module}': drop those references first (npm run new:field -- ${pointing[0]} <field> --drop)`);
  if (existsSync(path.join(root, REMOVED, module!))) throw new SpecError(`${REMOVED}/${module} exists already`);
  const source = readFileSync(path.join(root, file), 'utf8');
  const listed = MIGRATIONS_LIST.exec(source)?.[2]?.split(',').map((name) => name.trim()).filter(Boolean);
  if (!listed || listed.length === 0) throw new SpecError(`${file}: cannot find its 'migrations: [ … ]' list`);
  const imports = new Map([...source.matchAll(/^import \{ (\w+) \} from '\.\/migrations\/([\w-]+)';$/gm)].map((match) => [match[1]!, match[2]!]));
  for (const name of listed) if (!imports.has(name)) throw new SpecError(`${file}: cannot find where migration ${name} is imported from`);
  const { table, camel } = moduleNames(module!);
  const target = `${REMOVED}/${module}`;
  const files: PlannedFile[] = [];
  // Moved one folder deeper: imports that climb out of the module climb one more level.
  for (const migration of new Set(imports.values())) {
    const text = readFileSync(path.join(root, folder, 'migrations', `${migration}.ts`), 'utf8').replace(/from '\.\.\/\.\.\//g, "from '../../../");
    files.push({ path: `${target}/migrations/${migration}.ts`, content: text, edit: false });
  }
  const number = String(imports.size + 1).padStart(4, '0');
  const removal = `remove${camel[0]!.toUpperCase()}${camel.slice(1)}`;
  files.push({
    path: `${target}/migrations/${number}-remove-module.ts`,
    content: `import type { SqlMigration } from '../../../kit';
${listed.map((name) => `import { ${name} } from './${imports.get(name)}';\n`).join('')}
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
    for (const migration of [${listed.join(', ')}]) await migration.up(queryInterface);
  },
  documents: { collection: '${table}', drop: true },
};
`,
    edit: false,
  });
  files.push({
    path: `${target}/index.ts`,
    content: `import type { SqlMigration } from '../../kit';
${listed.map((name) => `import { ${name} } from './migrations/${imports.get(name)}';\n`).join('')}import { ${removal} } from './migrations/${number}-remove-module';

/** The migrations of the removed ${module} module, in their order, then the one that removed it. */
export const ${camel}Migrations: SqlMigration[] = [${[...listed, removal].join(', ')}];
`,
    edit: false,
  });
  // In the order they were removed: a fresh database replays their histories in that order.
  const index = path.join(root, REMOVED, 'index.ts');
  const earlier = existsSync(index) ? [...readFileSync(index, 'utf8').matchAll(/^import \{ \w+ \} from '\.\/([a-z0-9-]+)';$/gm)].map((match) => match[1]!) : [];
  const removedModules = [...earlier, module!];
  files.push({ path: `${REMOVED}/index.ts`, content: removedIndex(removedModules), edit: existsSync(path.join(root, REMOVED, 'index.ts')) });
  files.push({ path: REGISTRY, content: registryWithout(readFileSync(path.join(root, REGISTRY), 'utf8'), module!), edit: true });
  return { files, deleted: [folder, `test/modules/${module}`].filter((name) => existsSync(path.join(root, name))) };
}

/** The registry without the module, with the removed modules' store listed (once). */
function registryWithout(source: string, module: string): string {
  const factory = `${moduleNames(module).camel}Module`;
  if (!REGISTRY_LIST.test(source)) throw new SpecError(`${REGISTRY}: cannot find 'export const modules: ModuleFactory[] = [...]'`);
  let edited = source.replace(`import { ${factory} } from './${module}';\n`, '');
  edited = edited.replace(REGISTRY_LIST, (_all, open: string, items: string, close: string) => {
    const names = items.split(',').map((name) => name.trim()).filter((name) => name && name !== factory);
    if (!names.includes('removedModules')) names.push('removedModules');
    return `${open}${names.join(', ')}${close}`;
  });
  return edited.includes("from './removed'") ? edited : withImport(edited, "import { removedModules } from './removed';");
}

function main(argv: string[]): number {
  const dryRun = argv.includes('--dry-run');
  const [module, ...rest] = argv.filter((argument) => argument !== '--dry-run');
  try {
    if (rest.length > 0) throw new SpecError(`unexpected ${rest.join(' ')}`);
    const { files, deleted } = planRemoval(process.cwd(), module);
    const listing = [...files.map((f) => `${f.edit ? 'edit  ' : 'create'} ${f.path}`), ...deleted.map((folder) => `delete ${folder}/`)];
    if (dryRun) {
      process.stdout.write(`would (dry run, nothing written):\n${listing.map((line) => `  ${line}`).join('\n')}\n`);
      return 0;
    }
    write(process.cwd(), files);
    for (const folder of deleted) rmSync(path.join(process.cwd(), folder), { recursive: true, force: true });
    // The committed API document follows the routes (make lint fails while it is stale).
    if (existsSync('src/cli/openapi.ts')) {
      const openapi = spawnSync(process.execPath, [require.resolve('tsx/cli'), 'src/cli/openapi.ts'], { stdio: 'inherit' });
      if (openapi.status !== 0) process.stderr.write('remove:module: the files are written, but `npm run openapi` failed: run it after fixing the error above\n');
    }
    process.stdout.write(`${listing.join('\n')}\nnext: make test; the table is dropped when the migrations next run (at start-up)\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof SpecError)) throw error;
    process.stderr.write(`remove:module: ${error.message}; nothing was written\n${USAGE}\n`);
    return 2;
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
