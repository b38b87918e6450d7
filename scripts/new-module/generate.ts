import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseSpec, SpecError, type ModuleSpec } from './spec';
import { indexFile, migrationFile, mongoStoreFile, names, routesFile, schemasFile, sqlStoreFile, storeFile, typesFile } from './templates';
import { routesTestFile, storeTestFile } from './test-templates';

export interface PlannedFile {
  /** Relative to the repository root. */
  path: string;
  content: string;
  /** True when the file exists and is edited (the module registry), false when it is new. */
  edit: boolean;
}

const REGISTRY = 'src/modules/index.ts';
const REGISTRY_LIST = /(export const modules: ModuleFactory\[\] = \[)([^\]]*)(\];)/;

/** The registry with the new module imported and appended to the list. */
function registryWith(source: string, spec: ModuleSpec): string {
  const { module } = names(spec);
  if (!REGISTRY_LIST.test(source)) throw new SpecError(`${REGISTRY}: cannot find 'export const modules: ModuleFactory[] = [...]' to add the module to`);
  const importLine = `import { ${module} } from './${spec.name}';`;
  const imports = source.split('\n');
  const lastImport = imports.reduce((last, line, index) => (line.startsWith('import ') ? index : last), -1);
  imports.splice(lastImport + 1, 0, importLine);
  return imports.join('\n').replace(REGISTRY_LIST, (_all, open: string, items: string, close: string) => `${open}${items.trim() ? `${items.trim()}, ` : ''}${module}${close}`);
}

/** Every file the module needs, or a SpecError when it cannot be written here. Writes nothing. */
export function plan(root: string, name: string | undefined, fieldArguments: readonly string[]): PlannedFile[] {
  const spec = parseSpec(name, fieldArguments);
  const folder = `src/modules/${spec.name}`;
  const tests = `test/modules/${spec.name}`;
  if (existsSync(path.join(root, folder))) throw new SpecError(`module '${spec.name}' exists already (${folder})`);
  if (existsSync(path.join(root, tests))) throw new SpecError(`${tests} exists already`);
  const registry = readFileSync(path.join(root, REGISTRY), 'utf8');
  if (new RegExp(`from '\\./${spec.name}'`).test(registry)) throw new SpecError(`module '${spec.name}' is registered already in ${REGISTRY}`);
  const { migrationFile: migrationName } = names(spec);
  return [
    { path: `${folder}/index.ts`, content: indexFile(spec), edit: false },
    { path: `${folder}/routes.ts`, content: routesFile(spec), edit: false },
    { path: `${folder}/schemas.ts`, content: schemasFile(spec), edit: false },
    { path: `${folder}/types.ts`, content: typesFile(spec), edit: false },
    { path: `${folder}/store.ts`, content: storeFile(spec), edit: false },
    { path: `${folder}/sql-store.ts`, content: sqlStoreFile(spec), edit: false },
    { path: `${folder}/mongo-store.ts`, content: mongoStoreFile(spec), edit: false },
    { path: `${folder}/migrations/${migrationName}.ts`, content: migrationFile(spec), edit: false },
    { path: `${tests}/store.test.ts`, content: storeTestFile(spec), edit: false },
    { path: `${tests}/routes.test.ts`, content: routesTestFile(spec), edit: false },
    { path: REGISTRY, content: registryWith(registry, spec), edit: true },
  ];
}

/** Writes the planned files (all checks passed already). */
export function write(root: string, files: readonly PlannedFile[]): void {
  for (const file of files) {
    const target = path.join(root, file.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.content);
  }
}
