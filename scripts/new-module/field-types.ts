import type { FieldSpec } from './spec';

// How a field is spelled in the two files the generator writes: its declaration in resource.ts (what the
// kit reads) and its column(s) in a migration (fixed once run).

/** `field.string()`, `field.text({ optional: true })`, `field.reference(() => notesResource, { onDelete: 'cascade' })`. */
export function declaration(field: FieldSpec): string {
  const options = [...(field.optional ? ['optional: true'] : []), ...(field.reference?.onDelete === 'cascade' ? ["onDelete: 'cascade'"] : [])];
  const object = options.length > 0 ? `{ ${options.join(', ')} }` : '';
  if (field.reference) return `field.reference(() => ${field.reference.resource}${object ? `, ${object}` : ''})`;
  return `field.${field.type}(${object})`;
}

/** `c.string('title')`, `c.reference('note', 'notes', { onDelete: 'cascade' })`, spread into the table's columns. */
export function columns(field: FieldSpec): string {
  const options = [...(field.optional ? ['optional: true'] : []), ...(field.reference?.onDelete === 'cascade' ? ["onDelete: 'cascade'"] : [])];
  const object = options.length > 0 ? `, { ${options.join(', ')} }` : '';
  if (field.reference) return `c.reference('${field.column}', '${field.reference.table}'${object})`;
  return `c.${field.type}('${field.column}'${object})`;
}
