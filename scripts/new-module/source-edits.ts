// Edits of a module's declaration text that the generator's commands share.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { SpecError } from './spec';

/** A declaration's `fields: { … }` block. */
export const FIELDS_BLOCK = /(\n {2}fields: \{\n)([\s\S]*?)(\n {2}\},\n)/;

/** The declaration file of a kit module under `root` (`src/modules/<module>/resource.ts`), or a SpecError when there is none. */
export function declarationFile(root: string, module: string | undefined): string {
  const file = `src/modules/${module}/resource.ts`;
  if (!existsSync(path.join(root, file))) throw new SpecError(`no module '${module}' declared with the kit (${file})`);
  return file;
}

/** A field's `default: …` option as the generator writes it (a quoted string may hold commas and braces); group 1 is the literal. */
export const DEFAULT_OPTION = /default: ('(?:[^'\\]|\\.)*'|new Date\('[^']*'\)|-?[\d.]+|true|false)/;

/** A declaration's `migrations: [ … ]` list. */
export const MIGRATIONS_LIST = /(\n {2}migrations: \[)([^\]]*)(\],\n)/;

/** A kit module's declaration as text with the body of its fields block, or a SpecError when either the file or the block and list the generator edits are missing. */
export function readDeclaration(root: string, module: string | undefined): { file: string; source: string; fieldsBody: string } {
  const file = declarationFile(root, module);
  const source = readFileSync(path.join(root, file), 'utf8');
  const block = FIELDS_BLOCK.exec(source);
  if (!block || !MIGRATIONS_LIST.test(source)) throw new SpecError(`${file}: cannot find its 'fields: { … }' block and 'migrations: [ … ]' list`);
  return { file, source, fieldsBody: block[2]! };
}

/** The source with a line inserted after its last import. */
export function withImport(source: string, line: string): string {
  const lines = source.split('\n');
  const lastImport = lines.reduce((last, text, index) => (text.startsWith('import ') ? index : last), -1);
  lines.splice(lastImport + 1, 0, line);
  return lines.join('\n');
}

/** The number of a module's next migration (`0003`), `start` files after those written already. */
export function nextMigrationNumber(root: string, module: string, start = 0): string {
  const folder = path.join(root, `src/modules/${module}/migrations`);
  return String(readdirSync(folder).filter((name) => /^\d{4}-.*\.ts$/.test(name)).length + 1 + start).padStart(4, '0');
}

/** The declaration with one more migration (listed last, imported). */
export function withMigration(source: string, constant: string, file: string): string {
  const edited = source.replace(MIGRATIONS_LIST, (_all, open: string, items: string, close: string) => `${open}${items.trim()}, ${constant}${close}`);
  return withImport(edited, `import { ${constant} } from './migrations/${file}';`);
}
