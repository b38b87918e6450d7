import { defineResource, field } from '../../src/modules/kit';
import { checkInWords, keepsCheck, mirrored, parseCheck } from '../../src/stores/kit/field-checks';

// Checks across two fields as declared (src/stores/kit/field-checks.ts): what they compare, how they are told,
// and the declarations start-up refuses, each naming the resource and the check.

const fields = {
  startsAt: field.datetime(),
  endsAt: field.datetime({ optional: true }),
  low: field.integer(),
  high: field.number(),
  code: field.string(),
  label: field.string({ caseInsensitive: true }),
  open: field.boolean(),
  shut: field.boolean(),
  notes: field.text({ optional: true }),
};
const declare =
  (checks: string[], table = 'kit_checked') =>
  () =>
    defineResource({
      name: 'kit-checked',
      table,
      modelName: 'KitChecked',
      fields,
      checks: checks as never,
      migrations: [],
    });

describe('checks across fields', () => {
  it('compares numbers, instants, strings by code point and booleans; an empty side keeps the check', () => {
    const check = (text: string) => parseCheck(text)!;
    expect(keepsCheck(check('endsAt > startsAt'), { startsAt: new Date(1), endsAt: new Date(2) })).toBe(true);
    expect(keepsCheck(check('endsAt > startsAt'), { startsAt: new Date(2), endsAt: new Date(2) })).toBe(false);
    expect(keepsCheck(check('endsAt > startsAt'), { startsAt: new Date(2), endsAt: null })).toBe(true);
    expect(keepsCheck(check('high >= low'), { low: 2, high: 2 })).toBe(true);
    expect(keepsCheck(check('code < label'), { code: 'Z', label: 'a' })).toBe(true);
    // Code points, as the databases order them: U+FF01 comes before U+1F600, whose UTF-16 units start lower.
    expect(keepsCheck(check('code < label'), { code: '\uFF01', label: '😀' })).toBe(true);
    expect(keepsCheck(check('code < label'), { code: 'ab', label: 'abc' })).toBe(true);
    expect(keepsCheck(check('open != shut'), { open: true, shut: true })).toBe(false);
  });

  it('tells a broken check by the side written, in words of its kind', () => {
    const check = parseCheck('endsAt>startsAt')!;
    expect(check.text).toBe('endsAt > startsAt');
    expect(checkInWords(check, fields)).toBe('must be after startsAt');
    expect(checkInWords(mirrored(check), fields)).toBe('must be before endsAt');
    expect(checkInWords(parseCheck('high >= low')!, fields)).toBe('must be at least low');
  });

  it('refuses a check that is not <field> <op> <field> of one comparable kind, and one given twice', () => {
    expect(declare(['endsAt => startsAt'])).toThrow(
      "resource 'kit-checked': check 'endsAt => startsAt': write <field> <op> <field>",
    );
    expect(declare(['endsAt > beginsAt'])).toThrow("check 'endsAt > beginsAt': 'beginsAt' is not one of its fields");
    expect(declare(['low < low'])).toThrow('compares a field with itself');
    expect(declare(['low < startsAt'])).toThrow('low (integer) and startsAt (datetime) are not of one comparable kind');
    expect(declare(['code = label'])).toThrow('not of one comparable kind'); // a case-insensitive string compares folded
    expect(declare(['notes = code'])).toThrow('not of one comparable kind');
    expect(declare(['open < shut'])).toThrow('booleans compare with = and != only');
    expect(declare(['high >= low', 'high>=low'])).toThrow('a check is declared twice');
    expect(declare(['endsAt > startsAt'], 'a_table_name_long_enough_to_push_the_constraint_name')).toThrow(
      /longer than 63 characters/,
    );
    expect(declare(['endsAt > startsAt', 'high >= low', 'open != shut'])).not.toThrow();
  });
});
