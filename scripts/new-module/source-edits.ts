// Edits of a module's declaration text that the generator's commands share, made through its syntax tree
// (declaration.ts, syntax-tree.ts), so a resource.ts formatted or commented by hand takes them too.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { declaredFields, declaredMigrations, withMigrationListed } from './declaration';
import { SpecError } from './field-spec';
import { withImportStatement } from './syntax-tree';

/**
 * A file a command will write once every check has passed. Here rather than in generate.ts, which writes
 * them: field-changes.ts plans files for generate.ts, so taking the type from it made an import cycle.
 */
export interface PlannedFile {
  /** Relative to the repository root. */
  path: string;
  content: string;
  /** True when the file exists and is edited, false when it is new. */
  edit: boolean;
}

/** The declaration file of a kit module under `root` (`src/modules/<module>/resource.ts`), or a SpecError when there is none. */
export function declarationFile(root: string, module: string | undefined): string {
  const file = `src/modules/${module}/resource.ts`;
  if (!existsSync(path.join(root, file))) throw new SpecError(`no module '${module}' declared with the kit (${file})`);
  return file;
}

/**
 * A kit module's declaration as text with the text of its fields' entries, or a SpecError when either the file or
 * the `fields` object and `migrations` list the generator edits are missing.
 */
export function readDeclaration(
  root: string,
  module: string | undefined,
): { file: string; source: string; fieldsBody: string } {
  const file = declarationFile(root, module);
  const source = readFileSync(path.join(root, file), 'utf8');
  const fields = declaredFields(source, file);
  declaredMigrations(source, file);
  return {
    file,
    source,
    fieldsBody: fields.map((field) => `${field.name}: field.${field.type}(${field.options})`).join('\n'),
  };
}

/** The source with an import line added after its last import. */
export function withImport(source: string, line: string): string {
  return withImportStatement(source, line);
}

/** The number of a module's next migration (`0003`): after the highest one there, `start` files after those written already. */
export function nextMigrationNumber(
  root: string,
  module: string,
  start = 0,
  folder = path.join(root, `src/modules/${module}/migrations`),
): string {
  const numbers = readdirSync(folder)
    .flatMap((name) => /^(\d{4})-.*\.ts$/.exec(name)?.[1] ?? [])
    .map(Number);
  return String(Math.max(0, ...numbers) + 1 + start).padStart(4, '0');
}

/** The declaration with one more migration (listed last, imported). */
export function withMigration(source: string, constant: string, file: string): string {
  return withImport(withMigrationListed(source, constant), `import { ${constant} } from './migrations/${file}';`);
}
