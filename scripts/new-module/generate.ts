import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkModuleName, moduleNames, parseField, parseSpec, SpecError, type ModuleOptions, type ModuleSpec } from './spec';
import { addFieldMigrationFile, indexFile, migrationFile, names, resourceFile, testFile } from './templates';
import { declaration } from './field-types';
import { planFieldChange, withSearched, type FieldChange } from './field-changes';
import { FIELDS_BLOCK, nextMigrationNumber, readDeclaration, withImport, withMigration } from './source-edits';
import { refuseCascadeLayout } from './cascade-layout';

export interface PlannedFile {
  /** Relative to the repository root. */
  path: string;
  content: string;
  /** True when the file exists and is edited, false when it is new. */
  edit: boolean;
}

const REGISTRY = 'src/modules/index.ts';
const REGISTRY_LIST = /(export const modules: ModuleFactory\[\] = \[)([^\]]*)(\];)/;

/** Whether a module declared with the kit (its resource.ts) exists under this root. */
const resourceExists = (root: string) => (module: string) => existsSync(path.join(root, `src/modules/${module}/resource.ts`));


/** The registry with the new module imported and appended to the list. */
function registryWith(source: string, spec: ModuleSpec): string {
  const { module } = names(spec);
  if (!REGISTRY_LIST.test(source)) throw new SpecError(`${REGISTRY}: cannot find 'export const modules: ModuleFactory[] = [...]' to add the module to`);
  return withImport(source, `import { ${module} } from './${spec.name}';`).replace(REGISTRY_LIST, (_all, open: string, items: string, close: string) => `${open}${items.trim() ? `${items.trim()}, ` : ''}${module}${close}`);
}

function optionValues(argv: readonly string[], option: string): string[] {
  return argv.flatMap((argument, index) => (argument === option ? [argv[index + 1] ?? ''] : []));
}

/**
 * Splits `--unique a,b --filter c` from the positional arguments; an unknown option or a missing value is
 * refused. `flags` are options without a value (new:field's `--filter`, `--sort`).
 */
export function splitArguments(argv: readonly string[], known: readonly string[], flags: readonly string[] = []): { positional: string[]; options: ModuleOptions & { default: string[] }; dryRun: boolean; flags: Set<string> } {
  const positional: string[] = [];
  const given = new Set<string>();
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    if (argument === '--dry-run') continue;
    if (flags.includes(argument)) {
      given.add(argument);
      continue;
    }
    if (argument.startsWith('-')) {
      if (!known.includes(argument)) throw new SpecError(`unknown option ${argument}`);
      if (!argv[index + 1] || (argv[index + 1]!.startsWith('-') && !/^-\d/.test(argv[index + 1]!))) throw new SpecError(`${argument} needs a value, e.g. ${argument} title`);
      index += 1;
      continue;
    }
    positional.push(argument);
  }
  const value = (option: string) => (known.includes(option) ? optionValues(argv, option) : []);
  const options = { unique: value('--unique'), filter: value('--filter'), sort: value('--sort'), search: value('--search'), action: value('--action'), from: value('--from'), default: value('--default') };
  return { positional, dryRun: argv.includes('--dry-run'), options, flags: given };
}

/** Every file the module needs, or a SpecError when it cannot be written here. Writes nothing. */
export function plan(root: string, name: string | undefined, fieldArguments: readonly string[], options: ModuleOptions): PlannedFile[] {
  const spec = parseSpec(name, fieldArguments, options, resourceExists(root));
  const folder = `src/modules/${spec.name}`;
  const tests = `test/modules/${spec.name}`;
  if (existsSync(path.join(root, folder))) throw new SpecError(`module '${spec.name}' exists already (${folder})`);
  if (existsSync(path.join(root, tests))) throw new SpecError(`${tests} exists already`);
  const registry = readFileSync(path.join(root, REGISTRY), 'utf8');
  if (new RegExp(`from '\\./${spec.name}'`).test(registry)) throw new SpecError(`module '${spec.name}' is registered already in ${REGISTRY}`);
  const { migrationFile: migrationName } = names(spec);
  const resource = resourceFile(spec);
  refuseCascadeLayout(root, spec.name, resource);
  return [
    { path: `${folder}/resource.ts`, content: resource, edit: false },
    { path: `${folder}/index.ts`, content: indexFile(spec), edit: false },
    { path: `${folder}/migrations/${migrationName}.ts`, content: migrationFile(spec), edit: false },
    { path: `${tests}/${spec.name}.test.ts`, content: testFile(spec), edit: false },
    { path: REGISTRY, content: registryWith(registry, spec), edit: true },
  ];
}


/** The new migration and the edited declaration that adds one field to a kit module (npm run new:field). */
const DECLARED_LIST = (name: 'filters' | 'sort') => new RegExp(`(\\n {2}${name}: \\[)([^\\]]*)(\\],\\n)`);

/** The declaration with `name` added to its `filters` or `sort` list. */
export function withListed(source: string, list: 'filters' | 'sort', name: string, file: string): string {
  const pattern = DECLARED_LIST(list);
  if (!pattern.test(source)) throw new SpecError(`${file}: cannot find its '${list}: [ … ]' list`);
  return source.replace(pattern, (_all, open: string, items: string, close: string) => `${open}${items.trim() ? `${items.trim()}, ` : ''}'${name}'${close}`);
}

export function planField(root: string, module: string | undefined, fieldArgument: string | undefined, listed: FieldChange = {}): PlannedFile[] {
  // A field the module has already (or none: actions only): field-changes.ts.
  if (fieldArgument === undefined || !fieldArgument.includes(':')) return planExistingField(root, module, fieldArgument, listed);
  checkModuleName(module);
  const { file, source, fieldsBody } = readDeclaration(root, module);
  const seen = new Set([...fieldsBody.matchAll(/^ {4}(\w+):/gm)].map((match) => match[1]!));
  const field = parseField(fieldArgument, seen, (target) => target !== module && resourceExists(root)(target));
  if (!field.optional && field.default === undefined) {
    throw new SpecError(`field '${field.name}': the table may hold rows, which have no value for it: add it optional (${fieldArgument}?) or with a default (${fieldArgument}=<value>)`);
  }
  if (listed.default !== undefined) throw new SpecError(`a new field's default goes after =, e.g. ${field.name}:${field.type}=${listed.default}`);
  if (listed.search) {
    if (field.type !== 'string' && field.type !== 'text') throw new SpecError(`--search: '${field.name}' (${field.type}) is not a string or text field: only those are searched`);
    field.search = true;
  }
  const folder = `src/modules/${module}/migrations`;
  const number = nextMigrationNumber(root, module!);
  const constant = `add${field.name[0]!.toUpperCase()}${field.name.slice(1)}`;
  const migration = `${number}-add-${field.column.replace(/_/g, '-')}`;
  const { table } = moduleNames(module!);
  let edited = source.replace(FIELDS_BLOCK, (_all, open: string, body: string, close: string) => `${open}${body}\n    ${field.name}: ${declaration(field)},${close}`);
  edited = withMigration(edited, constant, migration);
  if (field.reference && !edited.includes(`import { ${field.reference.resource} }`)) edited = withImport(edited, `import { ${field.reference.resource} } from '../${field.reference.module}/resource';`);
  if (listed.filter || listed.sort) {
    if (field.type === 'text') throw new SpecError(`field '${field.name}' is text: it cannot be filtered or sorted (use string)`);
    if (listed.filter) edited = withListed(edited, 'filters', field.name, file);
    if (listed.sort) edited = withListed(edited, 'sort', field.name, file);
  }
  if (field.search) edited = withSearched(edited, field.name);
  if (field.reference) refuseCascadeLayout(root, module!, edited);
  const added: PlannedFile = { path: `${folder}/${migration}.ts`, content: addFieldMigrationFile({ name: module!, table }, field, number, constant), edit: false };
  if ((listed.actions ?? []).length === 0) return [added, { path: file, content: edited, edit: true }];
  const { files } = planFieldChange(root, module, undefined, { actions: listed.actions, from: listed.from }, 1, edited);
  return [added, ...files];
}

/** An existing field's change (default, search, filter, sort) and/or actions. */
function planExistingField(root: string, module: string | undefined, fieldName: string | undefined, change: FieldChange): PlannedFile[] {
  const { files, source } = planFieldChange(root, module, fieldName, change);
  if (!change.filter && !change.sort) return files;
  if (fieldName === undefined) throw new SpecError('--filter and --sort name a field: npm run new:field -- <module> <field> --filter');
  const file = `src/modules/${module}/resource.ts`;
  let edited = source;
  if (change.filter) edited = withListed(edited, 'filters', fieldName, file);
  if (change.sort) edited = withListed(edited, 'sort', fieldName, file);
  return files.map((planned) => (planned.path === file ? { ...planned, content: edited } : planned));
}

/** Writes the planned files (all checks passed already). */
export function write(root: string, files: readonly PlannedFile[]): void {
  for (const file of files) {
    const target = path.join(root, file.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.content);
  }
}
