import { defineResource, field } from '../../src/modules/kit';
import { allowedInWords, keepsRules, rulesOf } from '../../src/stores/kit/field-rules';
import { checkExpression } from '../../src/stores/sql/migrations/check-constraints';
import { checkSignature } from '../../src/stores/sql/migrations/check-catalog';

// The kit's reading of field rules: what a declaration may say (a mistake stops start-up naming the field),
// the words a 422 uses, and the CHECK each engine is given and compared by.

const declare = (fields: Parameters<typeof defineResource>[0]['fields']) => () =>
  defineResource({
    name: 'kit-rules-check',
    table: 'kit_rules_check',
    modelName: 'KitRulesCheck',
    fields,
    migrations: [],
  });

describe('field rules in a declaration', () => {
  it.each(
    [
      [{ n: field.integer({ enum: ['a'] } as never) }, /'n': enum, minLength and pattern are for string fields/],
      [{ s: field.string({ minimum: 1 } as never) }, /'s': minimum and maximum are for integer and number fields/],
      [{ s: field.string({ enum: [] }) }, /'s': an empty enum/],
      [{ s: field.string({ enum: ['a', 'a'] }) }, /'s': an enum value is given twice/],
      [{ s: field.string({ enum: ['a,b'] }) }, /without commas/],
      [{ n: field.integer({ minimum: 1.5 }) }, /'n': minimum is not an integer/],
      [{ n: field.number({ minimum: 3, maximum: 2 }) }, /'n': minimum 3 is above maximum 2/],
      [{ s: field.string({ minLength: 0 }) }, /'s': minLength is a whole number from 1 to its maxLength/],
      [{ s: field.string({ pattern: '([' }) }, /'s': pattern \(\[ is not a regular expression/],
      [{ s: field.string({ pattern: "^it's$" }) }, /may not contain a quote/],
      [
        { s: field.string({ enum: ['open', 'closed'], default: 'gone' }) },
        /'s': the default "gone" is not one of: open, closed/,
      ],
      [{ n: field.integer({ minimum: 1, maximum: 5, default: 9 }) }, /'n': the default 9 is not from 1 to 5/],
    ].map(([fields, message]) => ({ fields, message })),
  )('refuses at start-up, naming the field: $message', ({ fields, message }) => {
    expect(declare(fields as never)).toThrow(message as RegExp);
  });

  it('reads the rules, says what they allow and whether a value keeps them', () => {
    const status = field.string({ enum: ['open', 'closed'], default: 'open' });
    expect(rulesOf(status)).toEqual({ enum: ['open', 'closed'] });
    expect(allowedInWords({ minimum: 1 })).toBe('at least 1');
    expect(allowedInWords({ maximum: 5, minLength: 2, pattern: '^a' })).toBe(
      'at most 5, at least 2 characters, matching ^a',
    );
    expect(keepsRules({ minLength: 2 }, '😀😀')).toBe(true); // characters are code points, as JSON Schema counts them
    expect(keepsRules({ pattern: '^[A-Z]{3}$' }, 'ABCD')).toBe(false);
    expect(keepsRules({ minimum: 0 }, null)).toBe(true);
  });

  it('spells the CHECK per engine, pattern only where the engine has regular expressions', () => {
    const rules = { enum: ['a', "o'k"], minLength: 1, pattern: '^\\w+$' };
    expect(checkExpression('postgres', '"c"', rules)).toBe(
      `("c" IN ('a', 'o''k')) AND (char_length("c") >= 1) AND ("c" ~ '^\\w+$')`,
    );
    expect(checkExpression('mariadb', '`c`', rules)).toBe(
      "(`c` IN ('a', 'o''k')) AND (CHAR_LENGTH(`c`) >= 1) AND (`c` REGEXP '^\\\\w+$')",
    );
    expect(checkExpression('sqlite', '`c`', rules)).toBe("(`c` IN ('a', 'o''k')) AND (length(`c`) >= 1)");
    expect(checkExpression('sqlite', '`c`', {})).toBeUndefined();
  });

  it('compares a CHECK by its literals, whatever way the engine rewrote it', () => {
    const ours = checkExpression('postgres', '"status"', { enum: ['open', 'closed'] })!;
    expect(
      checkSignature(
        `CHECK (((status)::text = ANY ((ARRAY['open'::character varying, 'closed'::character varying])::text[])))`,
      ),
    ).toBe(checkSignature(ours));
    expect(checkSignature(`CHECK (((status)::text = ANY ((ARRAY['open'::character varying])::text[])))`)).not.toBe(
      checkSignature(ours),
    );
    expect(checkSignature('(`priority` >= 1 and `priority` <= 5)')).toBe(
      checkSignature(checkExpression('mariadb', '`priority`', { minimum: 1, maximum: 5 })!),
    );
    expect(checkSignature("((priority >= '-1'::integer) AND (priority <= 5))")).toBe(
      checkSignature('("priority" >= -1) AND ("priority" <= 5)'),
    );
  });
});
