import { columnOf, foldedColumnOf } from '../../src/stores/kit/fields';
import type { PlannedFile } from './generate';
import { checkModuleName, moduleNames, SpecError, type FieldSpec, type FieldType } from './spec';
import { declaredIndexColumns } from './templates';
import { DEFAULT_OPTION, FIELDS_BLOCK, nextMigrationNumber, readDeclaration, withMigration } from './source-edits';

// npm run new:field -- <module> <field> --rename <new name> | --drop
// A field of a kit module renamed or removed on a table that may hold rows: a migration that renames the
// column in place or drops it with its keys (src/stores/sql/migrations/field-rename-drop.ts), the same change on
// MongoDB documents (its `documents`), and the declaration edited to match (fields, unique keys, filters,
// sort). The declaration is read as the generator wrote it; a field it cannot read is refused.

const FIELD_NAME = /^[a-z][a-zA-Z0-9]*$/;
const RESERVED_FIELDS = new Set(['id', 'ownerId', 'createdAt', 'updatedAt', 'constructor', 'prototype', 'toString', 'valueOf']);
const FIELD_LINE = /^ {4}(\w+): field\.(\w+)\((.*)\),$/;
const LIST = (name: 'filters' | 'sort' | 'unique' | 'search') => new RegExp(`\\n {2}${name}: (\\[.*\\]),\\n`);

const pascal = (word: string) => word[0]!.toUpperCase() + word.slice(1);

interface DeclaredField extends FieldSpec {
  caseInsensitive: boolean;
  /** The default as written in the declaration (a TypeScript literal), if any. */
  defaultLiteral?: string;
}

/** `field.string({ optional: true, caseInsensitive: true })`, `field.reference(() => notesResource, { onDelete: 'cascade' })`, read back. */
function readField(line: string, source: string, file: string): DeclaredField {
  const match = FIELD_LINE.exec(line);
  if (!match) throw new SpecError(`${file}: cannot read the field declared as '${line.trim()}'`);
  const [, name, kind, args] = match as unknown as [string, string, string, string];
  const type = kind as FieldType;
  const defaultLiteral = DEFAULT_OPTION.exec(args)?.[1];
  const spec: DeclaredField = { name, column: columnOf(name), type, optional: /optional: true/.test(args), caseInsensitive: /caseInsensitive: true/.test(args), defaultLiteral };
  if (type === 'reference') {
    const resource = /\(\) => (\w+)/.exec(args)?.[1];
    const module = resource ? new RegExp(`import \\{ ${resource} \\} from '\\.\\./([a-z0-9-]+)/resource';`).exec(source)?.[1] : undefined;
    if (!resource || !module) throw new SpecError(`${file}: cannot tell which module the reference '${name}' points at`);
    spec.reference = { module, resource, table: moduleNames(module).table, onDelete: /onDelete: 'cascade'/.test(args) ? 'cascade' : 'restrict' };
  }
  return spec;
}

/** A `[...]` list of the declaration, as JSON (the generator writes it with single quotes). */
function readList<T>(source: string, name: 'filters' | 'sort' | 'unique' | 'search', fallback: T): T {
  const match = LIST(name).exec(source);
  return match ? (JSON.parse(match[1]!.replace(/'/g, '"')) as T) : fallback;
}

const spell = (value: unknown) => JSON.stringify(value).replace(/"/g, "'").replace(/,/g, ', ');

/** The declaration with a `[...]` list rewritten (or removed, for an empty unique list). */
function withList(source: string, name: 'filters' | 'sort' | 'unique' | 'search', value: unknown[]): string {
  if (!LIST(name).test(source)) return source;
  if ((name === 'unique' || name === 'search') && value.length === 0) return source.replace(LIST(name), '\n');
  return source.replace(LIST(name), `\n  ${name}: ${spell(value)},\n`);
}

export function planColumnChange(root: string, module: string | undefined, fieldName: string | undefined, change: { rename?: string; drop?: boolean; required?: boolean }): PlannedFile[] {
  checkModuleName(module);
  const { file, source, fieldsBody } = readDeclaration(root, module);
  if (!fieldName) throw new SpecError('the field to change is needed, e.g. npm run new:field -- tags name --rename label');
  const lines = fieldsBody.split('\n');
  const line = lines.find((text) => text.startsWith(`    ${fieldName}:`));
  if (!line) throw new SpecError(`module '${module}' has no field '${fieldName}'`);
  const field = readField(line, source, file);
  const { table } = moduleNames(module!);
  const filters = readList<string[]>(source, 'filters', []);
  const sort = readList<string[]>(source, 'sort', []);
  const unique = readList<string[][]>(source, 'unique', []);
  const search = readList<string[]>(source, 'search', []);
  const actions = /\n {2}actions: \{\n([\s\S]*?)\n {2}\},\n/.exec(source)?.[1] ?? '';
  if (new RegExp(`\\b${fieldName}\\b`).test(actions)) throw new SpecError(`field '${fieldName}' is used by an action of '${module}': change the action first`);
  const folder = `src/modules/${module}/migrations`;
  const number = nextMigrationNumber(root, module!);
  let edited: string;
  let constant: string;
  let migration: string;
  let content: string;
  if (change.required !== undefined) {
    if (field.optional === !change.required) throw new SpecError(`field '${fieldName}' is ${change.required ? 'required' : 'optional'} already`);
    const optionsOf = (text: string) => /\((\(\) => \w+, )?\{ (.*) \}\),$/.exec(text);
    let changed: string;
    if (change.required) {
      changed = line.replace(/\{ optional: true \}/, '').replace('optional: true, ', '').replace(', ),', '),');
    } else {
      const existing = optionsOf(line);
      changed = existing ? line.replace('{ ', '{ optional: true, ') : line.replace(/\(\),$/, '({ optional: true }),').replace(/(\(\) => \w+)\),$/, '$1, { optional: true }),');
    }
    edited = source.replace(line, changed);
    constant = `make${pascal(fieldName)}${change.required ? 'Required' : 'Optional'}`;
    migration = `${number}-make-${field.column.replace(/_/g, '-')}-${change.required ? 'required' : 'optional'}`;
    content = nullabilityMigrationFile(module!, table, migration, constant, field, change.required);
  } else if (change.rename !== undefined) {
    const to = change.rename;
    if (!FIELD_NAME.test(to) || to.length > 40) throw new SpecError(`field '${to}': names are camelCase letters and digits, starting with a letter (at most 40)`);
    if (RESERVED_FIELDS.has(to)) throw new SpecError(`field '${to}': reserved (every record has id, ownerId, createdAt and updatedAt already)`);
    if (lines.some((text) => text.startsWith(`    ${to}:`))) throw new SpecError(`module '${module}' has a field '${to}' already`);
    const swap = (name: string) => (name === fieldName ? to : name);
    edited = source.replace(FIELDS_BLOCK, (_all, open: string, body: string, close: string) => `${open}${body.replace(line, line.replace(`    ${fieldName}:`, `    ${to}:`))}${close}`);
    edited = withList(withList(withList(withList(edited, 'filters', filters.map(swap)), 'sort', sort.map(swap)), 'unique', unique.map((key) => key.map(swap))), 'search', search.map(swap));
    constant = `rename${pascal(fieldName)}To${pascal(to)}`;
    migration = `${number}-rename-${field.column.replace(/_/g, '-')}-to-${columnOf(to).replace(/_/g, '-')}`;
    content = renameMigrationFile(module!, table, migration, constant, field, to);
  } else {
    if (lines.filter((text) => FIELD_LINE.test(text)).length === 1) throw new SpecError(`'${fieldName}' is the only field of '${module}': remove the module instead (npm run remove:module -- ${module})`);
    const others = (names: string[]) => names.filter((name) => name !== fieldName);
    edited = source.replace(FIELDS_BLOCK, (_all, open: string, body: string, close: string) => `${open}${body.split('\n').filter((text) => text !== line).join('\n')}${close}`);
    edited = withList(withList(withList(withList(edited, 'filters', others(filters)), 'sort', others(sort)), 'unique', unique.filter((key) => !key.includes(fieldName))), 'search', others(search));
    if (field.reference && !new RegExp(`\\(\\) => ${field.reference.resource}\\b`).test(edited)) edited = edited.replace(`import { ${field.reference.resource} } from '../${field.reference.module}/resource';\n`, '');
    constant = `drop${pascal(fieldName)}`;
    migration = `${number}-drop-${field.column.replace(/_/g, '-')}`;
    // The keys and list indexes the field was part of, frozen for the down.
    const fields = lines.filter((text) => FIELD_LINE.test(text)).map((text) => readField(text, source, file));
    const keyColumn = (name: string) => {
      const declared = fields.find((candidate) => candidate.name === name)!;
      return declared.caseInsensitive ? foldedColumnOf(declared.column) : declared.column;
    };
    const dropped = [field.column, foldedColumnOf(field.column)];
    const indexes = declaredIndexColumns({ fields, filters, sort }).filter((list) => list.some((column) => dropped.includes(column)));
    const keys = unique.filter((key) => key.includes(fieldName)).map((key) => key.map(keyColumn));
    content = dropMigrationFile(module!, table, migration, constant, { ...field, search: search.includes(fieldName) }, keys, indexes);
  }
  edited = withMigration(edited, constant, migration);
  return [
    { path: `${folder}/${migration}.ts`, content, edit: false },
    { path: file, content: edited, edit: true },
  ];
}

function renameMigrationFile(module: string, table: string, migration: string, constant: string, field: DeclaredField, to: string): string {
  const toColumn = columnOf(to);
  return `import { renameFieldColumn, type SqlMigration } from '../../kit';

// ${table}.${field.column} becomes ${toColumn}, on a table that may hold rows: renamed in place, with its type, collation,
// indexes, unique keys and foreign key (docs/databases.md, "Changing a field"); MongoDB's documents with it. Never edit once run.
export const ${constant}: SqlMigration = {
  name: '${module}-${migration}',
  up: (queryInterface) => renameFieldColumn(queryInterface, '${table}', '${field.column}', '${toColumn}'),
  down: (queryInterface) => renameFieldColumn(queryInterface, '${table}', '${toColumn}', '${field.column}'),
  documents: { collection: '${table}', rename: { ${field.name}: '${to}' } },
};
`;
}

/** The column builder call that made the field's column(s): `c.string('name', { caseInsensitive: true, search: true })`. */
function columnCall(field: DeclaredField): string {
  const options = [
    ...(field.optional ? ['optional: true'] : []),
    ...(field.defaultLiteral !== undefined ? [`default: ${field.defaultLiteral}`] : []),
    ...(field.caseInsensitive ? ['caseInsensitive: true'] : []),
    ...(field.search ? ['search: true'] : []),
    ...(field.reference?.onDelete === 'cascade' ? ["onDelete: 'cascade'"] : []),
  ];
  const object = options.length > 0 ? `, { ${options.join(', ')} }` : '';
  return field.reference ? `c.reference('${field.column}', '${field.reference.table}'${object})` : `c.${field.type}('${field.column}'${object})`;
}

function dropMigrationFile(module: string, table: string, migration: string, constant: string, field: DeclaredField, keys: string[][], indexes: string[][]): string {
  const column = columnCall(field);
  const steps = [
    `await restoreFieldColumns(queryInterface, '${table}', (c) => ${column});`,
    ...keys.map((key) => `await addUniqueKey(queryInterface, '${table}', ${spell(key)});`),
    ...(indexes.length > 0 ? [`await createListIndexes(queryInterface, '${table}', ${spell(indexes)});`] : []),
  ];
  const imports = [...(keys.length > 0 ? ['addUniqueKey'] : []), ...(indexes.length > 0 ? ['createListIndexes'] : []), 'dropFieldColumn', 'restoreFieldColumns'];
  return `import { ${imports.join(', ')}, type SqlMigration } from '../../kit';

// ${field.name} leaves ${table}: its column goes with its indexes, unique keys and foreign key (docs/databases.md,
// "Changing a field"); MongoDB's documents lose it too. It destroys the values: start-up does not run it while
// rows hold some; after a backup, npm run db:migrate -- up --allow-destructive. Never edit once run.
export const ${constant}: SqlMigration = {
  name: '${module}-${migration}',
  up: (queryInterface) => dropFieldColumn(queryInterface, '${table}', '${field.column}'),
  destroys: [{ table: '${table}', column: '${field.column}' }],
  // The values are gone: undone, the column comes back empty, with the keys and list indexes it was part of
  // (a required one on a table with rows comes back nullable: the start-up check says so until they have values).
  down: async (queryInterface) => {
    ${steps.join('\n    ')}
  },
  documents: { collection: '${table}', unset: ['${field.name}'] },
};
`;
}

function nullabilityMigrationFile(module: string, table: string, migration: string, constant: string, field: DeclaredField, required: boolean): string {
  const step = (makeRequired: boolean, lenient: boolean) => `setFieldRequired(queryInterface, '${table}', '${field.column}', ${makeRequired}${lenient ? ', { ifPossible: true }' : ''})`;
  return `import { setFieldRequired, type SqlMigration } from '../../kit';

// ${table}.${field.column} ${required ? 'refuses' : 'takes'} null from now on: only that changes; its type, collation, default, keys and
// foreign key stay (docs/databases.md, "Changing a field").${required ? ' Refused while a row holds no value for it: give them one first.' : ''}
// MongoDB's documents need nothing: the store checks what a record holds. Never edit once run.
export const ${constant}: SqlMigration = {
  name: '${module}-${migration}',
  up: (queryInterface) => ${step(required, false)},
  ${required ? '' : '// Over rows without a value it stays optional: the start-up comparison then says so.\n  '}down: (queryInterface) => ${step(!required, !required)},
};
`;
}
