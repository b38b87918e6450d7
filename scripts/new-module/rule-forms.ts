import { keepsRules, ruleProblems, type FieldRules } from '../../src/stores/kit/field-rules';
import type { FieldDefinition } from '../../src/stores/kit/fields';
import { literal, SpecError, type FieldSpec, type FieldType } from './field-spec';

// A field's rules as the generator reads and writes them (docs/modules.md, "Rules"):
//   status:enum:open,in_progress,closed=open   a string, one of these values (here with a default)
//   priority:integer:1..5=3  score:number:0..100  rank:integer:1..   a range, either end left out
//   code:string:/^[A-Z]{3}$/   a string matching the pattern      name:string:3..   at least 3 characters
// and in a declaration's options: `enum: ['open', 'closed']`, `minimum: 1`, `maximum: 5`, `minLength: 3`,
// `pattern: '^[A-Z]{3}$'` (what the kit reads: src/stores/kit/field-rules.ts).

const NUMBER = /^-?\d+(\.\d+)?$/;

function bound(name: string, text: string, type: FieldType): number | undefined {
  if (text === '') return undefined;
  if (!NUMBER.test(text) || (type === 'integer' && !/^-?\d+$/.test(text)))
    throw new SpecError(
      `field '${name}': range end '${text}' is not ${type === 'integer' ? 'an integer' : 'a number'}`,
    );
  return Number(text);
}

/** `--range 1..5`, `1..`, `..5` as minimum/maximum (`..` alone: no bounds). */
export function parseRange(name: string, text: string, type: FieldType): FieldRules {
  const match = /^(.*?)\.\.(.*)$/.exec(text);
  if (!match)
    throw new SpecError(`field '${name}': a range is <min>..<max>, either end may be left out (e.g. 1..5, 0.., ..100)`);
  const [minimum, maximum] = [bound(name, match[1]!, type), bound(name, match[2]!, type)];
  return { ...(minimum === undefined ? {} : { minimum }), ...(maximum === undefined ? {} : { maximum }) };
}

/** `--enum a,b,c` as the enum rule. */
export function parseEnum(name: string, text: string): FieldRules {
  const values = text.split(',');
  if (values.some((value) => !/^[A-Za-z0-9_.-]+$/.test(value)))
    throw new SpecError(
      `field '${name}': enum values are letters, digits, _ . and -, comma-separated (e.g. open,in_progress,closed)`,
    );
  return { enum: values };
}

/** The rules of a declaration as the kit would check them, or a SpecError naming what is wrong (the default included). */
export function checkRules(field: Pick<FieldSpec, 'name' | 'type' | 'default'>, rules: FieldRules): FieldRules {
  const definition = {
    kind: field.type,
    optional: true,
    omittable: true,
    ...rules,
    ...(field.default === undefined || field.type === 'datetime' ? {} : { default: field.default }),
  } as FieldDefinition;
  const problems = ruleProblems(field.name, definition);
  if (problems.length > 0) throw new SpecError(problems.join('; '));
  if (field.default !== undefined && field.type !== 'datetime' && !keepsRules(rules, field.default))
    throw new SpecError(`field '${field.name}': its default breaks the rules`);
  return rules;
}

/**
 * A field argument in one of the rule forms, as the plain form parseField reads (`status:string=open`)
 * and the rules; undefined for an argument without one.
 */
export function readRuleForm(argument: string): { plain: string; rules: FieldRules } | undefined {
  const enumForm = /^([^:]+):enum:([^=?]+)(\?)?(=.*)?$/.exec(argument);
  if (enumForm)
    return {
      plain: `${enumForm[1]}:string${enumForm[3] ?? ''}${enumForm[4] ?? ''}`,
      rules: parseEnum(enumForm[1]!, enumForm[2]!),
    };
  const rangeForm = /^([^:]+):(integer|number):(-?[\d.]*\.\.-?[\d.]*)(\?)?(=.*)?$/.exec(argument);
  if (rangeForm)
    return {
      plain: `${rangeForm[1]}:${rangeForm[2]}${rangeForm[4] ?? ''}${rangeForm[5] ?? ''}`,
      rules: parseRange(rangeForm[1]!, rangeForm[3]!, rangeForm[2] as FieldType),
    };
  const lengthForm = /^([^:]+):string:(\d+)\.\.(\?)?(=.*)?$/.exec(argument);
  if (lengthForm)
    return {
      plain: `${lengthForm[1]}:string${lengthForm[3] ?? ''}${lengthForm[4] ?? ''}`,
      rules: { minLength: Number(lengthForm[2]) },
    };
  const patternForm = /^([^:]+):string:\/(.+)\/(\?)?(=.*)?$/.exec(argument);
  if (patternForm)
    return {
      plain: `${patternForm[1]}:string${patternForm[3] ?? ''}${patternForm[4] ?? ''}`,
      rules: { pattern: patternForm[2]! },
    };
  return undefined;
}

export const RULE_KEYS = ['enum', 'minimum', 'maximum', 'minLength', 'pattern'] as const;

/** Each rule's value as a TypeScript expression (`['open', 'closed']`, `1`, `'^[A-Z]+$'`), undefined where the rule is absent. */
export function ruleValues(rules: FieldRules | undefined): Record<(typeof RULE_KEYS)[number], string | undefined> {
  return {
    enum: rules?.enum ? `[${rules.enum.map((value) => literal(value, 'string')).join(', ')}]` : undefined,
    minimum: rules?.minimum?.toString(),
    maximum: rules?.maximum?.toString(),
    minLength: rules?.minLength?.toString(),
    pattern: rules?.pattern !== undefined ? literal(rules.pattern, 'string') : undefined,
  };
}

/** The rules as declaration options: `enum: ['open', 'closed']`, `minimum: 1`, … (the same in a migration's column options). */
export function ruleOptions(rules: FieldRules | undefined): string[] {
  return Object.entries(ruleValues(rules)).flatMap(([key, value]) => (value === undefined ? [] : [`${key}: ${value}`]));
}
