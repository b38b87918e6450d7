import { readFileSync } from 'node:fs';
import path from 'node:path';
import { columnOf } from '../../src/stores/kit/fields';
import { searchColumnOf } from '../../src/stores/kit/shadows';
import { columns, declaration } from './field-types';
import { literal, parseDefault, SpecError, type FieldSpec } from './field-spec';
import {
  declaredActions,
  declaredFields,
  declaredList,
  withAction,
  withField,
  withFieldOption,
  withListEntry,
} from './declaration';
import { declarationFile, nextMigrationNumber, withMigration, type PlannedFile } from './source-edits';
import { actionLine, parseAction } from './action-spec';
import { checkModuleName, moduleNames } from './spec';

// npm run new:field on fields a module has already, and its actions: `notes pinned --default true` (the
// column's DEFAULT, and the declaration's), `notes title --search` (the search shadow, filled from the
// rows), `notes --action archive:archivedAt` (the action, and its read-only datetime if missing). Each
// writes the next migration(s) and edits resource.ts; the rest follows from the declaration.

export interface FieldChange {
  /** `--filter` (the field named) or `--filter a,b` (these fields). */
  filter?: boolean | string[];
  sort?: boolean | string[];
  search?: boolean;
  default?: string;
  actions?: readonly string[];
  /** `--from open,in_progress` with the one action: the states it starts from (action-spec.ts). */
  from?: readonly string[];
}

export { declaredFields } from './declaration';

export function withSearched(source: string, name: string): string {
  return withListEntry(source, 'search', name);
}

/** A migration's text; its down drops with dropFieldColumn, which keeps the table's other indexes on SQLite (removeColumn rebuilds the table without them). */
function migrationText(
  module: string,
  constant: string,
  name: string,
  comment: string,
  imports: string,
  up: string,
  down: string,
  documents?: string,
  outsideTransaction = false,
  downDestroys?: string,
): string {
  return `import { ${imports}, type SqlMigration } from '../../kit';

// ${comment} Never edit once run.
export const ${constant}: SqlMigration = {
  name: '${module}-${name}',${outsideTransaction ? '\n  transaction: false, // the fill commits batch by batch (resuming where it stopped); PostgreSQL builds the index CONCURRENTLY' : ''}
  up: (queryInterface) => ${up},
  down: (queryInterface) => ${down},${documents ? `\n  documents: ${documents},` : ''}${downDestroys ? `\n  downDestroys: ${downDestroys},` : ''}
};
`;
}

const pascal = (word: string) => word[0]!.toUpperCase() + word.slice(1);
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The migrations and the edited declaration of a change to an existing field and/or new actions. */
export function planFieldChange(
  root: string,
  module: string | undefined,
  fieldName: string | undefined,
  change: FieldChange,
  numbered = 0,
  given?: string,
): { files: PlannedFile[]; source: string } {
  checkModuleName(module);
  const file = declarationFile(root, module);
  let source = given ?? readFileSync(path.join(root, file), 'utf8');
  const { table } = moduleNames(module!);
  const files: PlannedFile[] = [];
  const migration = (constant: string, name: string, text: string) => {
    files.push({ path: `src/modules/${module}/migrations/${name}.ts`, content: text, edit: false });
    source = withMigration(source, constant, name);
  };
  const number = () => nextMigrationNumber(root, module!, numbered + files.length);
  const fields = declaredFields(source);
  if (fieldName !== undefined) {
    const field = fields.find((candidate) => candidate.name === fieldName);
    if (!field)
      throw new SpecError(
        `'${fieldName}' is not a field of ${module} (a new field is <name>:<type>, e.g. ${fieldName}:boolean=false)`,
      );
    const column = columnOf(fieldName);
    const shadows = `{ caseInsensitive: ${field.option.caseInsensitive === 'true'}, search: ${declaredList(source, 'search').includes(fieldName) || change.search === true} }`;
    if (change.default !== undefined) {
      const value = literal(parseDefault(fieldName, field.type, change.default), field.type);
      const previous = field.option.default ?? 'null';
      const n = number();
      migration(
        `default${pascal(fieldName)}${n}`,
        `${n}-default-${kebab(fieldName)}`,
        migrationText(
          module!,
          `default${pascal(fieldName)}${n}`,
          `${n}-default-${kebab(fieldName)}`,
          `The column DEFAULT of ${fieldName} (SQLite keeps the first one: the store gives the default on create, on every engine).`,
          'setFieldDefault',
          `setFieldDefault(queryInterface, '${table}', '${column}', ${value}, ${shadows})`,
          `setFieldDefault(queryInterface, '${table}', '${column}', ${previous}, ${shadows})`,
        ),
      );
      source = withFieldOption(source, fieldName, 'default', value);
    }
    if (change.search) {
      if (field.type !== 'string' && field.type !== 'text')
        throw new SpecError(
          `--search: '${fieldName}' (${field.type}) is not a string or text field: only those are searched`,
        );
      const maxLength = field.option.maxLength;
      const n = number();
      migration(
        `search${pascal(fieldName)}`,
        `${n}-search-${kebab(fieldName)}`,
        migrationText(
          module!,
          `search${pascal(fieldName)}`,
          `${n}-search-${kebab(fieldName)}`,
          `${fieldName}_search, the shadow ?q= matches, added and filled from the rows (MongoDB's documents given theirs), then its trigram indexes (table-wide and per owner) built online (PostgreSQL CONCURRENTLY, outside a transaction).`,
          'addSearchColumn, addSearchIndex, dropFieldColumn, removeSearchIndex',
          `addSearchColumn(queryInterface, '${table}', '${column}', { kind: '${field.type}'${maxLength ? `, maxLength: ${maxLength}` : ''} }).then(() => addSearchIndex(queryInterface, '${table}', ['${searchColumnOf(column)}'])).then(() => addSearchIndex(queryInterface, '${table}', ['${searchColumnOf(column)}'], { searchIndex: 'per-owner' }))`,
          `removeSearchIndex(queryInterface, '${table}', ['${searchColumnOf(column)}'], { searchIndex: 'per-owner' }).then(() => removeSearchIndex(queryInterface, '${table}', ['${searchColumnOf(column)}'])).then(() => dropFieldColumn(queryInterface, '${table}', '${searchColumnOf(column)}'))`,
          `{ collection: '${table}', fill: [{ field: '${fieldName}', search: true }] }`,
          true,
        ),
      );
      source = withSearched(source, fieldName);
    }
  }
  if ((change.from ?? []).length > 0 && (change.actions ?? []).length !== 1)
    throw new SpecError('--from goes with exactly one --action');
  for (const value of change.actions ?? []) {
    const specs: FieldSpec[] = declaredFields(source).map((field) => ({
      name: field.name,
      column: field.name,
      type: field.type,
      optional: field.option.optional === 'true',
      readOnly: field.option.readOnly === 'true',
      default: field.option.default,
    }));
    const { action, added: adding } = parseAction(
      value,
      specs,
      new Set(specs.map((field) => field.name)),
      change.from?.[0],
    );
    if (declaredActions(source).some((declared) => declared.name === action.name))
      throw new SpecError(`--action ${value}: ${module} has an action '${action.name}' already`);
    for (const added of adding) {
      const n = number();
      const constant = `add${pascal(added.name)}`;
      migration(
        constant,
        `${n}-add-${kebab(added.name)}`,
        migrationText(
          module!,
          constant,
          `${n}-add-${kebab(added.name)}`,
          `${added.name} on ${table}, set by the ${action.name} action only: rows read it as null.`,
          'addFieldColumns, dropFieldColumn',
          `addFieldColumns(queryInterface, '${table}', (c) => ${columns(added)})`,
          `dropFieldColumn(queryInterface, '${table}', '${added.column}')`,
          undefined,
          false,
          `[{ table: '${table}', column: '${added.column}' }]`,
        ),
      );
      source = withField(source, added.name, declaration(added));
    }
    source = withAction(source, actionLine(action));
  }
  if (files.length === 0 && !change.filter && !change.sort && (change.actions ?? []).length === 0)
    throw new SpecError(
      'nothing to change: give --default <value>, --search, --filter, --sort or --action <name>:<field>',
    );
  return { files: [...files, { path: file, content: source, edit: true }], source };
}
