import { checksOf, keepsCheck, mirrored, type FieldCheck } from '../../src/stores/kit/field-checks';
import { keepsRules, rulesOf } from '../../src/stores/kit/field-rules';
import type { FieldDefinition } from '../../src/stores/kit/fields';
import type { Resource } from '../../src/stores/kit/resource';

// Samples that keep a resource's checks across fields (src/stores/kit/field-checks.ts), and values just outside
// each, for the contract suites: a side the test did not fix is moved to the nearest value the check allows
// (a step past the other side, or equal to it), keeping its own field rules; datetimes may be Dates or the ISO
// strings of a JSON body.

type Values = Record<string, unknown>;

const STEP: Record<string, number> = { integer: 1, number: 0.5, datetime: 60_000 };

/** `value` moved by `steps` steps of its kind (a string: a longer or a shorter one, in code-point order). */
export function shifted(definition: FieldDefinition, value: unknown, steps: number): unknown {
  if (steps === 0) return value;
  if (definition.kind === 'boolean') return !value;
  if (definition.kind === 'datetime') {
    const moved = new Date(new Date(value as Date | string).getTime() + steps * STEP.datetime!);
    return typeof value === 'string' ? moved.toISOString() : moved;
  }
  if (typeof value === 'number') return value + steps * STEP[definition.kind]!;
  const text = String(value);
  if (steps > 0) return `${text}0`.slice(0, definition.maxLength);
  return text.length > 1 ? text.slice(0, -1) : String.fromCodePoint(Math.max(32, text.codePointAt(0)! - 1));
}

/** The left side's value nearest the right's that keeps the check (`>`: a step above, `=`: the same…). */
function keeping(check: FieldCheck, definition: FieldDefinition, other: unknown): unknown {
  const steps = { '<': -1, '<=': 0, '>': 1, '>=': 0, '=': 0, '!=': 1 }[check.operator];
  return shifted(definition, other, steps);
}

/** The left side's value nearest the right's that breaks the check (`>`: the same, `>=`: a step below…). */
export function justOutside(check: FieldCheck, definition: FieldDefinition, other: unknown): unknown {
  const steps = { '<': 0, '<=': 1, '>': 0, '>=': -1, '=': 1, '!=': 0 }[check.operator];
  return shifted(definition, other, steps);
}

/**
 * The values with every declared check kept: for each check they break, the side not in `fixed` (the left
 * first) takes the nearest value that keeps it and its own rules. Throws, naming the check, when neither can.
 */
export function keepingChecks(resource: Resource, values: Values, fixed: ReadonlySet<string> = new Set()): Values {
  const kept = { ...values };
  const checks = checksOf(resource);
  for (let pass = 0; pass <= checks.length; pass += 1) {
    // A check whose sides are both fixed stays as the caller wrote it (a case just outside it, on purpose).
    const broken = checks.filter(
      (check) => !keepsCheck(check, kept) && !(fixed.has(check.left) && fixed.has(check.right)),
    );
    if (broken.length === 0) return kept;
    for (const check of broken) {
      const moved = [check, mirrored(check)]
        .filter((side) => !fixed.has(side.left))
        .some((side) => {
          const definition = resource.fields[side.left]!;
          const value = keeping(side, definition, kept[side.right]);
          if (!keepsRules(rulesOf(definition), value)) return false;
          kept[side.left] = value;
          return true;
        });
      if (!moved)
        throw new Error(
          `no sample of ${resource.name} keeps ${check.text} within its fields' rules: shape its samples (shapeSamples)`,
        );
    }
  }
  throw new Error(
    `no sample of ${resource.name} keeps all of ${checks.map((check) => check.text).join(', ')}: shape its samples (shapeSamples)`,
  );
}
