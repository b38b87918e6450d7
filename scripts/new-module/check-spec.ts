import { checkProblems, parseCheck } from '../../src/stores/kit/field-checks';
import type { FieldDefinition, Fields } from '../../src/stores/kit/fields';
import { SpecError, type FieldSpec } from './field-spec';

// Checks across fields on the command line (`--check 'endsAt > startsAt'`), read and judged as the kit judges
// a declaration (src/stores/kit/field-checks.ts): on new:module's fields (spec.ts) or an existing module's
// (check-changes.ts).

/** What the kit needs of a field to judge a check: its kind, emptiness, and whether it compares folded. */
export function definitionOf(kind: string, optional: boolean, caseInsensitive: boolean): FieldDefinition {
  return { kind, optional, omittable: optional, caseInsensitive } as FieldDefinition;
}

/** new:module's `--check` values, judged against the module's fields. */
export function parseChecks(values: readonly string[], fields: readonly FieldSpec[]): string[] {
  const known: Fields = Object.fromEntries(
    fields.map((field) => [field.name, definitionOf(field.type, field.optional, false)]),
  );
  return checked(values, known);
}

/** The checks given, judged against `fields` and spelled as a declaration holds them, or a SpecError naming the first wrong one. */
export function checked(values: readonly string[], fields: Fields): string[] {
  const texts = values.map((value) => {
    const problems = checkProblems(fields, value);
    if (problems.length > 0) throw new SpecError(`--check ${problems.join('; ')}`);
    return parseCheck(value)!.text;
  });
  if (new Set(texts).size !== texts.length) throw new SpecError('a --check is given twice');
  return texts;
}
