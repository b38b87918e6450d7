// Edits of a module's declaration text that the generator's commands share.

/** A declaration's `migrations: [ … ]` list. */
export const MIGRATIONS_LIST = /(\n {2}migrations: \[)([^\]]*)(\],\n)/;

/** The source with a line inserted after its last import. */
export function withImport(source: string, line: string): string {
  const lines = source.split('\n');
  const lastImport = lines.reduce((last, text, index) => (text.startsWith('import ') ? index : last), -1);
  lines.splice(lastImport + 1, 0, line);
  return lines.join('\n');
}
