import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SpecError } from './field-spec';
import { checkModuleName, moduleNames, parseField, parseSpec, type ModuleOptions, type ModuleSpec } from './spec';
import { addFieldMigrationFile, indexFile, migrationFile, names, resourceFile, testFile } from './templates';
import { declaration } from './field-types';
import { planFieldChange, withSearched, type FieldChange } from './field-changes';
import { declaredFields, withField, withListEntry } from './declaration';
import { nextMigrationNumber, readDeclaration, withImport, withMigration, type PlannedFile } from './source-edits';
import { appendElement, constantArray, namedImports, parse } from './syntax-tree';
import { refuseCascadeLayout } from './cascade-layout';

const REGISTRY = 'src/modules/index.ts';

/** Whether a module declared with the kit (its resource.ts) exists under this root. */
const resourceExists = (root: string) => (module: string) =>
  existsSync(path.join(root, `src/modules/${module}/resource.ts`));

/** The registry with the new module imported and appended to the list. */
function registryWith(source: string, spec: ModuleSpec): string {
  const { module } = names(spec);
  const list = constantArray(parse(source), 'modules');
  if (!list)
    throw new SpecError(
      `${REGISTRY}: cannot find 'export const modules: ModuleFactory[] = [...]' to add the module to`,
    );
  return withImport(appendElement(source, list, module), `import { ${module} } from './${spec.name}';`);
}

function optionValues(argv: readonly string[], option: string): string[] {
  return argv.flatMap((argument, index) => (argument === option ? [argv[index + 1] ?? ''] : []));
}

/** A value a flag may take: field names, comma-separated (`--filter severity`, `--sort rank,createdAt`). */
const NAME_LIST = /^[a-z][a-zA-Z0-9]*(,[a-z][a-zA-Z0-9]*)*$/;

/**
 * Splits `--unique a,b --filter c` from the positional arguments; an unknown option or a missing value is
 * refused. `flags` are options that may go without a value (new:field's `--filter`, `--sort`); those also in
 * `valued` take the next argument as their value when it is a list of field names.
 */
export function splitArguments(
  argv: readonly string[],
  known: readonly string[],
  flags: readonly string[] = [],
  valued: readonly string[] = [],
): { positional: string[]; options: ModuleOptions & { default: string[] }; dryRun: boolean; flags: Set<string> } {
  const positional: string[] = [];
  const given = new Set<string>();
  const values = new Map<string, string[]>();
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!;
    if (argument === '--dry-run') continue;
    if (flags.includes(argument)) {
      given.add(argument);
      const next = argv[index + 1];
      if (valued.includes(argument) && next !== undefined && NAME_LIST.test(next)) {
        values.set(argument, [...(values.get(argument) ?? []), next]);
        index += 1;
      }
      continue;
    }
    if (argument.startsWith('-')) {
      if (!known.includes(argument)) throw new SpecError(`unknown option ${argument}`);
      if (!argv[index + 1] || (argv[index + 1]!.startsWith('-') && !/^-\d/.test(argv[index + 1]!)))
        throw new SpecError(`${argument} needs a value, e.g. ${argument} title`);
      index += 1;
      continue;
    }
    positional.push(argument);
  }
  const value = (option: string) => (known.includes(option) ? optionValues(argv, option) : (values.get(option) ?? []));
  const options = {
    unique: value('--unique'),
    filter: value('--filter'),
    sort: value('--sort'),
    search: value('--search'),
    action: value('--action'),
    from: value('--from'),
    default: value('--default'),
    read: value('--read'),
    write: value('--write'),
    check: value('--check'),
  };
  return { positional, dryRun: argv.includes('--dry-run'), options, flags: given };
}

/** Every file the module needs, or a SpecError when it cannot be written here. Writes nothing. */
export function plan(
  root: string,
  name: string | undefined,
  fieldArguments: readonly string[],
  options: ModuleOptions,
): PlannedFile[] {
  const spec = parseSpec(name, fieldArguments, options, resourceExists(root));
  // A module removed before under this name keeps its history (src/modules/removed/<name>): numbered after it, so the names differ.
  const removed = path.join(root, `src/modules/removed/${spec.name}/migrations`);
  if (existsSync(removed)) spec.firstMigration = Number(nextMigrationNumber(root, spec.name, 0, removed));
  const folder = `src/modules/${spec.name}`;
  const tests = `test/modules/${spec.name}`;
  if (existsSync(path.join(root, folder))) throw new SpecError(`module '${spec.name}' exists already (${folder})`);
  if (existsSync(path.join(root, tests))) throw new SpecError(`${tests} exists already`);
  const registry = readFileSync(path.join(root, REGISTRY), 'utf8');
  if ([...namedImports(parse(registry)).values()].includes(`./${spec.name}`))
    throw new SpecError(`module '${spec.name}' is registered already in ${REGISTRY}`);
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

/** The declaration with `name` added to its `filters` or `sort` list (created when missing). */
export function withListed(source: string, list: 'filters' | 'sort', name: string, _file?: string): string {
  return withListEntry(source, list, name);
}

/** The names `--filter` / `--sort` give: their value (`--filter severity,status`), or the field named when bare. */
function listedNames(given: FieldChange['filter'], fieldName: string | undefined, option: string): string[] {
  if (Array.isArray(given)) return given.flatMap((value) => value.split(',')).filter(Boolean);
  if (!given) return [];
  if (fieldName === undefined)
    throw new SpecError(
      `${option} names a field: npm run new:field -- <module> <field> ${option}, or ${option} <field>`,
    );
  return [fieldName];
}

/** The declaration with the fields `--filter` and `--sort` name added to its lists, each checked against its fields. */
function withListedFields(source: string, change: FieldChange, fieldName: string | undefined, file: string): string {
  let edited = source;
  const fields = declaredFields(source, file);
  for (const [option, list] of [
    ['--filter', 'filters'],
    ['--sort', 'sort'],
  ] as const) {
    for (const name of listedNames(change[list === 'filters' ? 'filter' : 'sort'], fieldName, option)) {
      const field = fields.find((candidate) => candidate.name === name);
      if (!field && name !== 'createdAt' && name !== 'updatedAt')
        throw new SpecError(`${option} ${name}: '${name}' is not one of the fields of ${file}`);
      if (field?.type === 'text')
        throw new SpecError(`field '${name}' is text: it cannot be filtered or sorted (use string)`);
      edited = withListed(edited, list, name);
    }
  }
  return edited;
}

/** The new migration and the edited declaration that adds one field to a kit module (npm run new:field). */
export function planField(
  root: string,
  module: string | undefined,
  fieldArgument: string | undefined,
  listed: FieldChange = {},
): PlannedFile[] {
  // A field the module has already (or none: actions only): field-changes.ts.
  if (fieldArgument === undefined || !fieldArgument.includes(':'))
    return planExistingField(root, module, fieldArgument, listed);
  checkModuleName(module);
  const { file, source } = readDeclaration(root, module);
  const seen = new Set(declaredFields(source, file).map((declared) => declared.name));
  const field = parseField(fieldArgument, seen, (target) => target !== module && resourceExists(root)(target));
  if (!field.optional && field.default === undefined) {
    throw new SpecError(
      `field '${field.name}': the table may hold rows, which have no value for it: add it optional (${fieldArgument}?) or with a default (${fieldArgument}=<value>)`,
    );
  }
  if (listed.default !== undefined)
    throw new SpecError(`a new field's default goes after =, e.g. ${field.name}:${field.type}=${listed.default}`);
  if (listed.search) {
    if (field.type !== 'string' && field.type !== 'text')
      throw new SpecError(
        `--search: '${field.name}' (${field.type}) is not a string or text field: only those are searched`,
      );
    field.search = true;
  }
  const folder = `src/modules/${module}/migrations`;
  const number = nextMigrationNumber(root, module!);
  const constant = `add${field.name[0]!.toUpperCase()}${field.name.slice(1)}`;
  const migration = `${number}-add-${field.column.replace(/_/g, '-')}`;
  const { table } = moduleNames(module!);
  let edited = withField(source, field.name, declaration(field));
  edited = withMigration(edited, constant, migration);
  if (field.reference && !namedImports(parse(edited)).has(field.reference.resource))
    edited = withImport(edited, `import { ${field.reference.resource} } from '../${field.reference.module}/resource';`);
  edited = withListedFields(edited, listed, field.name, file);
  if (field.search) edited = withSearched(edited, field.name);
  if (field.reference) refuseCascadeLayout(root, module!, edited);
  const added: PlannedFile = {
    path: `${folder}/${migration}.ts`,
    content: addFieldMigrationFile({ name: module!, table }, field, number, constant),
    edit: false,
  };
  if ((listed.actions ?? []).length === 0) return [added, { path: file, content: edited, edit: true }];
  const { files } = planFieldChange(root, module, undefined, { actions: listed.actions, from: listed.from }, 1, edited);
  return [added, ...files];
}

/** An existing field's change (default, search, filter, sort) and/or actions. */
function planExistingField(
  root: string,
  module: string | undefined,
  fieldName: string | undefined,
  change: FieldChange,
): PlannedFile[] {
  const { files, source } = planFieldChange(root, module, fieldName, change);
  if (!change.filter && !change.sort) return files;
  const file = `src/modules/${module}/resource.ts`;
  const edited = withListedFields(source, change, fieldName, file);
  return files.map((planned) => (planned.path === file ? { ...planned, content: edited } : planned));
}

/** Writes the planned files (all checks passed already), formatted as `make lint` expects them. */
export function write(root: string, files: readonly PlannedFile[]): void {
  for (const file of files) {
    const target = path.join(root, file.path);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.content);
  }
  format(
    root,
    files.map((file) => file.path).filter((file) => file.endsWith('.ts')),
  );
}

/** Prettier over the written files; where it is not installed, the files stay as the templates wrote them. */
function format(root: string, files: readonly string[]): void {
  const prettier = path.join(root, 'node_modules/.bin/prettier');
  if (files.length === 0 || !existsSync(prettier)) return;
  // Twice: Prettier's first pass over a long member chain can leave what its second pass changes again.
  for (let pass = 0; pass < 2; pass += 1) {
    const run = spawnSync(prettier, ['--write', '--log-level', 'warn', ...files], { cwd: root, encoding: 'utf8' });
    if (run.status !== 0)
      return void process.stderr.write(`prettier could not format the written files:\n${run.stderr}`);
  }
}
