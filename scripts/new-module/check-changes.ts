import {
  crossCheckName,
  inColumns,
  OPERATOR_NAMES,
  parseCheck,
  type FieldCheck,
} from '../../src/stores/kit/field-checks';
import type { Fields } from '../../src/stores/kit/fields';
import { checked, definitionOf } from './check-spec';
import { declaredFields, declaredList, withListEntry, withoutListEntry, type DeclaredField } from './declaration';
import { SpecError } from './field-spec';
import { nextMigrationNumber, readDeclaration, withMigration, type PlannedFile } from './source-edits';
import { checkModuleName, moduleNames } from './spec';

// new:field's checks across fields: `--check 'endsAt > startsAt'` adds one to an existing module and
// `--drop-check` takes one out, each with a migration of its own: addFieldCheck counts the rows breaking it
// before the CHECK constraint is added (MongoDB: the collection's validator, from the declaration).

/** The fields as resource.ts declares them, for judging a check. */
function declaredDefinitions(fields: readonly DeclaredField[]): Fields {
  return Object.fromEntries(
    fields.map((field) => [
      field.name,
      definitionOf(field.type, field.option.optional === 'true', field.option.caseInsensitive === 'true'),
    ]),
  );
}

/** The checks of a declaration naming a field (a rename or a drop of it is refused while one does). */
export function checksNaming(source: string, name: string): string[] {
  return declaredList(source, 'checks').filter((text) => {
    const check = parseCheck(text);
    return check !== undefined && (check.left === name || check.right === name);
  });
}

const kebab = (check: FieldCheck) =>
  `${check.left}-${OPERATOR_NAMES[check.operator]}-${check.right}`.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** new:field's `--check` / `--drop-check`: the migration and the edited declaration. */
export function planCheckChange(root: string, module: string | undefined, text: string, drop: boolean): PlannedFile[] {
  checkModuleName(module);
  const { file, source } = readDeclaration(root, module);
  const declared = declaredList(source, 'checks');
  const [normal] = drop
    ? [parseCheck(text)?.text ?? text]
    : checked([text], declaredDefinitions(declaredFields(source, file)));
  if (drop && !declared.includes(normal!))
    throw new SpecError(
      `--drop-check '${text}': ${module} declares no such check (its checks: ${declared.join(', ') || 'none'})`,
    );
  if (!drop && declared.includes(normal!)) throw new SpecError(`--check '${text}': ${module} declares it already`);
  const check = parseCheck(normal!)!;
  const columns = inColumns(check);
  const { table, camel } = moduleNames(module!);
  const number = nextMigrationNumber(root, module!);
  const name = `${number}-${drop ? 'drop' : 'check'}-${kebab(check)}`;
  const constant = `${drop ? 'drop' : 'check'}${camel[0]!.toUpperCase()}${camel.slice(1)}${number}`;
  const [up, down] = drop ? ['removeFieldCheck', 'addFieldCheck'] : ['addFieldCheck', 'removeFieldCheck'];
  const migration = `import { ${[up, down].sort().join(', ')}, type SqlMigration } from '../../kit';

// ${drop ? 'No longer' : 'From now on'} ${check.text} on ${table}: the CHECK constraint ${crossCheckName(table, columns)}${drop ? ' goes' : ', added once no row breaks it (refused, naming how many, while rows do)'}; MongoDB's validator follows the
// declaration when it migrates. Never edit once run.
export const ${constant}: SqlMigration = {
  name: '${module}-${name}',
  up: (queryInterface) => ${up}(queryInterface, '${table}', '${columns.text}'),
  down: (queryInterface) => ${down}(queryInterface, '${table}', '${columns.text}'),
};
`;
  const listed = drop ? withoutListEntry(source, 'checks', normal!) : withListEntry(source, 'checks', normal!);
  return [
    { path: `src/modules/${module}/migrations/${name}.ts`, content: migration, edit: false },
    { path: file, content: withMigration(listed, constant, name), edit: true },
  ];
}
