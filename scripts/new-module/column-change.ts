import { columnOf, foldedColumnOf } from '../../src/stores/kit/fields';
import { checksNaming } from './check-changes';
import { SpecError, type FieldSpec } from './field-spec';
import { checkModuleName, moduleNames } from './spec';
import { declaredIndexColumns } from './templates';
import {
  declaredActions,
  declaredFields,
  declaredList,
  declaredUnique,
  withFieldOption,
  withFieldRenamed,
  withListsRenamed,
  withoutField,
  withoutListed,
  type DeclaredField,
} from './declaration';
import { nextMigrationNumber, readDeclaration, withMigration, type PlannedFile } from './source-edits';
import { withoutImport } from './syntax-tree';

// npm run new:field -- <module> <field> --rename <new name> | --drop
// A field of a kit module renamed or removed on a table that may hold rows: a migration that renames the
// column in place or drops it with its keys (src/stores/sql/migrations/field-rename-drop.ts), the same change on
// MongoDB documents (its `documents`), and the declaration edited to match (fields, unique keys, filters,
// sort), through its syntax tree; a field it cannot read is refused.

const FIELD_NAME = /^[a-z][a-zA-Z0-9]*$/;
const RESERVED_FIELDS = new Set([
  'id',
  'ownerId',
  'createdAt',
  'updatedAt',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
]);

const pascal = (word: string) => word[0]!.toUpperCase() + word.slice(1);

interface ChangedField extends FieldSpec {
  caseInsensitive: boolean;
  /** The default as written in the declaration (a TypeScript literal), if any. */
  defaultLiteral?: string;
  /** The field's rules as written in the declaration (`minimum: '1'`, `enum: "['a', 'b']"`): its CHECK's. */
  ruleLiterals: Record<string, string>;
}

/** The declaration options that are rules (field-rules.ts), in the order the builders take them. */
const RULE_OPTIONS = ['enum', 'minimum', 'maximum', 'minLength', 'pattern'] as const;

/** A number, a quoted string, or an array of quoted strings, as TypeScript writes them. */
const LITERAL = /^(-?\d+(\.\d+)?|'(?:[^'\\]|\\.)*'|\[\s*('(?:[^'\\]|\\.)*'\s*,?\s*)*\])$/;

/** The field's rules as written, each a literal: the drop's down must hold the value, not a name from elsewhere. */
function literalRules(field: ChangedField): [string, string][] {
  const rules = Object.entries(field.ruleLiterals);
  for (const [rule, literal] of rules)
    if (!LITERAL.test(literal.replace(/\s+/g, ' ').trim()))
      throw new SpecError(
        `the ${rule} of '${field.name}' is ${literal}, not a literal: write the value out in the declaration, so the migration can hold it`,
      );
  return rules;
}

/** A declared field as the migrations spell it: its column, whether it may be null, its reference's table. */
function specOf(declared: DeclaredField, file: string): ChangedField {
  const { name, type, option } = declared;
  const spec: ChangedField = {
    name,
    column: columnOf(name),
    type,
    optional: option.optional === 'true',
    caseInsensitive: option.caseInsensitive === 'true',
    defaultLiteral: option.default,
    ruleLiterals: Object.fromEntries(
      RULE_OPTIONS.filter((rule) => option[rule] !== undefined).map((rule) => [rule, option[rule]!]),
    ),
  };
  if (type === 'reference') {
    const module = declared.reference?.module;
    if (!declared.reference || !module)
      throw new SpecError(`${file}: cannot tell which module the reference '${name}' points at`);
    spec.reference = {
      module,
      resource: declared.reference.resource,
      table: moduleNames(module).table,
      onDelete: option.onDelete === "'cascade'" ? 'cascade' : 'restrict',
    };
  }
  return spec;
}

const spell = (value: unknown) => JSON.stringify(value).replace(/"/g, "'").replace(/,/g, ', ');

export function planColumnChange(
  root: string,
  module: string | undefined,
  fieldName: string | undefined,
  change: { rename?: string; drop?: boolean; required?: boolean },
): PlannedFile[] {
  checkModuleName(module);
  const { file, source } = readDeclaration(root, module);
  if (!fieldName)
    throw new SpecError('the field to change is needed, e.g. npm run new:field -- tags name --rename label');
  const declared = declaredFields(source, file);
  const target = declared.find((candidate) => candidate.name === fieldName);
  if (!target) throw new SpecError(`module '${module}' has no field '${fieldName}'`);
  const field = specOf(target, file);
  const { table } = moduleNames(module!);
  const filters = declaredList(source, 'filters');
  const sort = declaredList(source, 'sort');
  const unique = declaredUnique(source);
  const search = declaredList(source, 'search');
  if (declaredActions(source).some((action) => new RegExp(`\\b${fieldName}\\b`).test(action.text)))
    throw new SpecError(`field '${fieldName}' is used by an action of '${module}': change the action first`);
  const checked = checksNaming(source, fieldName);
  if (checked.length > 0 && change.required === undefined) {
    throw new SpecError(
      `field '${fieldName}' is in the check ${checked.join(', ')} of '${module}': take it out first (npm run new:field -- ${module} --drop-check '${checked[0]}')`,
    );
  }
  const folder = `src/modules/${module}/migrations`;
  const number = nextMigrationNumber(root, module!);
  let edited: string;
  let constant: string;
  let migration: string;
  let content: string;
  if (change.required !== undefined) {
    if (field.optional === !change.required)
      throw new SpecError(`field '${fieldName}' is ${change.required ? 'required' : 'optional'} already`);
    edited = withFieldOption(source, fieldName, 'optional', change.required ? undefined : 'true', 'first');
    constant = `make${pascal(fieldName)}${change.required ? 'Required' : 'Optional'}`;
    migration = `${number}-make-${field.column.replace(/_/g, '-')}-${change.required ? 'required' : 'optional'}`;
    content = nullabilityMigrationFile(module!, table, migration, constant, field, change.required);
  } else if (change.rename !== undefined) {
    const to = change.rename;
    if (!FIELD_NAME.test(to) || to.length > 40)
      throw new SpecError(`field '${to}': names are camelCase letters and digits, starting with a letter (at most 40)`);
    if (RESERVED_FIELDS.has(to))
      throw new SpecError(`field '${to}': reserved (every record has id, ownerId, createdAt and updatedAt already)`);
    if (declared.some((candidate) => candidate.name === to))
      throw new SpecError(`module '${module}' has a field '${to}' already`);
    edited = withListsRenamed(withFieldRenamed(source, fieldName, to), fieldName, to);
    constant = `rename${pascal(fieldName)}To${pascal(to)}`;
    migration = `${number}-rename-${field.column.replace(/_/g, '-')}-to-${columnOf(to).replace(/_/g, '-')}`;
    content = renameMigrationFile(module!, table, migration, constant, field, to);
  } else {
    if (declared.length === 1)
      throw new SpecError(
        `'${fieldName}' is the only field of '${module}': remove the module instead (npm run remove:module -- ${module})`,
      );
    edited = withoutListed(withoutField(source, fieldName), fieldName);
    const resource = field.reference?.resource;
    if (resource && !declaredFields(edited, file).some((other) => other.reference?.resource === resource))
      edited = withoutImport(edited, resource);
    constant = `drop${pascal(fieldName)}`;
    migration = `${number}-drop-${field.column.replace(/_/g, '-')}`;
    // The keys and list indexes the field was part of, frozen for the down.
    const fields = declared.map((candidate) => specOf(candidate, file));
    const keyColumn = (name: string) => {
      const other = fields.find((candidate) => candidate.name === name)!;
      return other.caseInsensitive ? foldedColumnOf(other.column) : other.column;
    };
    const dropped = [field.column, foldedColumnOf(field.column)];
    const indexes = declaredIndexColumns({ fields, filters, sort }).filter((list) =>
      list.some((column) => dropped.includes(column)),
    );
    const keys = unique.filter((key) => key.includes(fieldName)).map((key) => key.map(keyColumn));
    content = dropMigrationFile(
      module!,
      table,
      migration,
      constant,
      { ...field, search: search.includes(fieldName) },
      keys,
      indexes,
    );
  }
  edited = withMigration(edited, constant, migration);
  return [
    { path: `${folder}/${migration}.ts`, content, edit: false },
    { path: file, content: edited, edit: true },
  ];
}

function renameMigrationFile(
  module: string,
  table: string,
  migration: string,
  constant: string,
  field: ChangedField,
  to: string,
): string {
  const toColumn = columnOf(to);
  return `import { renameFieldColumn, type SqlMigration } from '../../kit';

// ${table}.${field.column} becomes ${toColumn}, on a table that may hold rows: renamed in place, with its type, collation,
// indexes, unique keys and foreign key (docs/modules.md, "Renaming, dropping, relaxing a field"); MongoDB's documents with it. Never edit once run.
export const ${constant}: SqlMigration = {
  name: '${module}-${migration}',
  up: (queryInterface) => renameFieldColumn(queryInterface, '${table}', '${field.column}', '${toColumn}'),
  down: (queryInterface) => renameFieldColumn(queryInterface, '${table}', '${toColumn}', '${field.column}'),
  documents: { collection: '${table}', rename: { ${field.name}: '${to}' } },
};
`;
}

/** The column builder call that made the field's column(s): `c.string('name', { caseInsensitive: true, search: true })`. */
function columnCall(field: ChangedField): string {
  const options = [
    ...(field.optional ? ['optional: true'] : []),
    ...literalRules(field).map(([rule, literal]) => `${rule}: ${literal}`),
    ...(field.defaultLiteral !== undefined ? [`default: ${field.defaultLiteral}`] : []),
    ...(field.caseInsensitive ? ['caseInsensitive: true'] : []),
    ...(field.search ? ['search: true'] : []),
    ...(field.reference?.onDelete === 'cascade' ? ["onDelete: 'cascade'"] : []),
  ];
  const object = options.length > 0 ? `, { ${options.join(', ')} }` : '';
  return field.reference
    ? `c.reference('${field.column}', '${field.reference.table}'${object})`
    : `c.${field.type}('${field.column}'${object})`;
}

function dropMigrationFile(
  module: string,
  table: string,
  migration: string,
  constant: string,
  field: ChangedField,
  keys: string[][],
  indexes: string[][],
): string {
  const column = columnCall(field);
  const steps = [
    `await restoreFieldColumns(queryInterface, '${table}', (c) => ${column});`,
    ...keys.map((key) => `await addUniqueKey(queryInterface, '${table}', ${spell(key)});`),
    ...(indexes.length > 0 ? [`await createListIndexes(queryInterface, '${table}', ${spell(indexes)});`] : []),
  ];
  const imports = [
    ...(keys.length > 0 ? ['addUniqueKey'] : []),
    ...(indexes.length > 0 ? ['createListIndexes'] : []),
    'dropFieldColumn',
    'restoreFieldColumns',
  ];
  return `import { ${imports.join(', ')}, type SqlMigration } from '../../kit';

// ${field.name} leaves ${table}: its column goes with its indexes, unique keys and foreign key (docs/modules.md,
// "Renaming, dropping, relaxing a field"); MongoDB's documents lose it too. It destroys the values: start-up does not run it while
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

function nullabilityMigrationFile(
  module: string,
  table: string,
  migration: string,
  constant: string,
  field: ChangedField,
  required: boolean,
): string {
  const step = (makeRequired: boolean, lenient: boolean) =>
    `setFieldRequired(queryInterface, '${table}', '${field.column}', ${makeRequired}${lenient ? ', { ifPossible: true }' : ''})`;
  return `import { setFieldRequired, type SqlMigration } from '../../kit';

// ${table}.${field.column} ${required ? 'refuses' : 'takes'} null from now on: only that changes; its type, collation, default, keys and
// foreign key stay (docs/modules.md, "Renaming, dropping, relaxing a field").${required ? ' Refused while a row holds no value for it: give them one first.' : ''}
// MongoDB's documents need nothing: the store checks what a record holds. Never edit once run.
export const ${constant}: SqlMigration = {
  name: '${module}-${migration}',
  up: (queryInterface) => ${step(required, false)},
  ${required ? '' : '// Over rows without a value it stays optional: the start-up comparison then says so.\n  '}down: (queryInterface) => ${step(!required, !required)},
};
`;
}
