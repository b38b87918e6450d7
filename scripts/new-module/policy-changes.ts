import { accessProblems, isCatalogue, type ResourceAccess } from '../../src/stores/kit/access-policy';
import { columnOf, foldedColumnOf, foldedNameOf } from '../../src/stores/kit/fields';
import { declaredAccess, declaredFields, declaredUnique, withResourceProperty } from './declaration';
import { SpecError } from './field-spec';
import { nextMigrationNumber, readDeclaration, withMigration, type PlannedFile } from './source-edits';
import { checkModuleName, moduleNames } from './spec';

// npm run new:field -- <module> --read owner|authenticated|public --write owner|admin|role:<name>
// A module's access policy changed (src/stores/kit/access-policy.ts): the declaration's `access` edited. Who
// reads is the routes' business alone; a module becoming a catalogue changes its data too: a migration makes
// every record the catalogue's (makeCatalogue, and the same on MongoDB's documents), after checking that
// values of a unique key held by two owners would not clash once they share one. A catalogue made each
// writer's own again keeps its records as they are: the catalogue's, which admins change or delete.

const quoteList = (items: readonly string[]) => `[${items.map((item) => `'${item}'`).join(', ')}]`;

/** The migration (when the records change owner) and the edited declaration of a policy change. */
export function planPolicyChange(
  root: string,
  module: string | undefined,
  read: string | undefined,
  write: string | undefined,
): PlannedFile[] {
  checkModuleName(module);
  const { file, source } = readDeclaration(root, module);
  const written = declaredAccess(source);
  const current = { read: written.read ?? 'owner', write: written.write ?? 'owner' } as ResourceAccess;
  const next = { read: read ?? current.read, write: write ?? current.write } as ResourceAccess;
  const problems = accessProblems(next);
  if (problems.length > 0) throw new SpecError(`--read ${next.read} --write ${next.write}: ${problems.join('; ')}`);
  if (next.read === current.read && next.write === current.write)
    throw new SpecError(`${module} has --read ${current.read} --write ${current.write} already`);
  const policy =
    next.read === 'owner' && next.write === 'owner' ? undefined : `{ read: '${next.read}', write: '${next.write}' }`;
  const edited = withResourceProperty(source, 'access', policy);
  if (isCatalogue(current) || !isCatalogue(next)) return [{ path: file, content: edited, edit: true }];
  const { table, camel } = moduleNames(module!);
  const number = nextMigrationNumber(root, module!);
  const name = `${number}-make-catalogue`;
  const constant = `make${camel[0]!.toUpperCase()}${camel.slice(1)}Catalogue`;
  // The key as its unique index holds it: a case-insensitive field by its folded shadow (column and document path).
  const folded = new Set(
    declaredFields(source, file)
      .filter((field) => field.option.caseInsensitive === 'true')
      .map((field) => field.name),
  );
  const unique = declaredUnique(source);
  const columns = unique.map((key) =>
    key.map((name) => (folded.has(name) ? foldedColumnOf(columnOf(name)) : columnOf(name))),
  );
  const paths = unique.map((key) => key.map((name) => (folded.has(name) ? foldedNameOf(name) : name)));
  const migration = `import { makeCatalogue, type SqlMigration } from '../../kit';

// ${table} becomes a catalogue (written by ${next.write === 'admin' ? 'admins' : next.write}): every record the catalogue's, so its unique keys hold across all
// of them; refused, naming the values, while two owners hold the same. Its down leaves the records the catalogue's
// (their owners before are not kept). Never edit once run.
export const ${constant}: SqlMigration = {
  name: '${module}-${name}',
  up: (queryInterface) => makeCatalogue(queryInterface, '${table}', [${columns.map(quoteList).join(', ')}]),
  down: async () => undefined,
  documents: { collection: '${table}', catalogue: { unique: [${paths.map(quoteList).join(', ')}] } },
};
`;
  return [
    { path: `src/modules/${module}/migrations/${name}.ts`, content: migration, edit: false },
    { path: file, content: withMigration(edited, constant, name), edit: true },
  ];
}
