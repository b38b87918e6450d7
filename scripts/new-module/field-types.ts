import { literal, type FieldSpec } from './field-spec';
import { ruleOptions } from './rule-forms';

// How a field is spelled in the two files the generator writes: its declaration in resource.ts (what the
// kit reads) and its column(s) in a migration (fixed once run).

function optionsOf(field: FieldSpec, forColumns: boolean): string[] {
  return [
    ...(field.optional ? ['optional: true'] : []),
    ...ruleOptions(field.rules),
    ...(field.default !== undefined ? [`default: ${literal(field.default, field.type)}`] : []),
    ...(field.readOnly && !forColumns ? ['readOnly: true'] : []),
    ...(field.search && forColumns ? ['search: true'] : []),
    ...(field.reference?.onDelete === 'cascade' ? ["onDelete: 'cascade'"] : []),
  ];
}

/** `field.string()`, `field.boolean({ default: false })`, `field.reference(() => notesResource, { onDelete: 'cascade' })`. */
export function declaration(field: FieldSpec): string {
  const options = optionsOf(field, false);
  const object = options.length > 0 ? `{ ${options.join(', ')} }` : '';
  if (field.reference) return `field.reference(() => ${field.reference.resource}${object ? `, ${object}` : ''})`;
  return `field.${field.type}(${object})`;
}

/** `c.string('title', { search: true })`, `c.reference('note', 'notes', { onDelete: 'cascade' })`, spread into the table's columns. */
export function columns(field: FieldSpec): string {
  const options = optionsOf(field, true);
  const object = options.length > 0 ? `, { ${options.join(', ')} }` : '';
  if (field.reference) return `c.reference('${field.column}', '${field.reference.table}'${object})`;
  return `c.${field.type}('${field.column}'${object})`;
}
