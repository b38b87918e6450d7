import { accessProblems, type ResourceAccess } from '../../src/stores/kit/access-policy';
// What `npm run new:module` and `npm run new:field` ask for, checked before anything is written.

import { columnOf } from '../../src/stores/kit/fields';
import { parseAction, type ActionSpec } from './action-spec';
import { parseDefault, SpecError, type FieldSpec, type FieldType } from './field-spec';
import { checkRules, readRuleForm } from './rule-forms';
import { parseChecks } from './check-spec';

export const FIELD_TYPES = [
  'string',
  'text',
  'integer',
  'number',
  'boolean',
  'datetime',
  'ref:<module>[:cascade]',
  'enum:<a,b,c>',
  'integer:<min>..<max>',
  'number:<min>..<max>',
  'string:/<pattern>/',
  'string:<minLength>..',
] as const;

export interface ModuleSpec {
  /** As in the URL: lower-case, dashes (`invoice-items`). */
  name: string;
  camel: string; // invoiceItems
  table: string; // invoice_items
  singular: string; // InvoiceItem (the model name)
  fields: FieldSpec[];
  unique: string[][];
  filters: string[];
  sort: string[];
  search: string[];
  actions: ActionSpec[];
  /** The number of its first migration: 1, or after the history of a removed module of the same name. */
  firstMigration?: number;
  /** Who may read and write, when not each user their own records. */
  access?: ResourceAccess;
  /** Checks across fields (`endsAt > startsAt`), as the declaration writes them. */
  checks: string[];
}

const MODULE_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const FIELD_NAME = /^[a-z][a-zA-Z0-9]*$/;
/** Names the service uses itself, or that would shadow a mount point it has. */
const RESERVED_MODULES = new Set(['auth', 'health', 'api', 'openapi', 'docs', 'kit', 'index', 'users']);
/** Every record has these already; and names that are not safe as object keys. */
const RESERVED_FIELDS = new Set([
  'id',
  'ownerId',
  'createdAt',
  'updatedAt',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
]);
const SIMPLE_TYPES = new Set(['string', 'text', 'integer', 'number', 'boolean', 'datetime']);
const TIMESTAMPS = ['createdAt', 'updatedAt'];

const pascal = (words: string[]) => words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');

function singularOf(word: string): string {
  if (/ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ses|xes|zes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (/[^s]s$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Identifiers derived from a module name. */
export function moduleNames(name: string): { camel: string; table: string; singular: string; resource: string } {
  const words = name.split('-');
  const camel = words[0] + pascal(words.slice(1));
  return {
    camel,
    table: words.join('_'),
    singular: pascal([...words.slice(0, -1), singularOf(words.at(-1)!)]),
    resource: `${camel}Resource`,
  };
}

export function checkModuleName(name: string | undefined): string {
  if (!name) throw new SpecError('a module name is needed, e.g. notes');
  if (!MODULE_NAME.test(name) || name.length > 40) {
    throw new SpecError(
      `module name '${name}': lower-case letters and digits, words joined by single dashes, starting with a letter (at most 40)`,
    );
  }
  return name;
}

/** `name:type[?][=default]`, `note:ref:notes[:cascade][?]`; `exists(module)` says whether a referenced module is there. */
export function parseField(argument: string, seen: Set<string>, exists: (module: string) => boolean): FieldSpec {
  const ruled = readRuleForm(argument);
  if (ruled) {
    const field = parseField(ruled.plain, seen, exists);
    return { ...field, rules: checkRules(field, ruled.rules) };
  }
  const equals = argument.indexOf('=');
  if (equals >= 0) {
    const field = parseField(argument.slice(0, equals), seen, exists);
    return { ...field, default: parseDefault(field.name, field.type, argument.slice(equals + 1)) };
  }
  const match = /^([^:]+):([a-z]+)(?::([a-z0-9-]+))?(?::(cascade|restrict))?(\?)?$/.exec(argument);
  if (!match)
    throw new SpecError(
      `field '${argument}': expected <name>:<type>[?][=default], e.g. title:string, body:text?, pinned:boolean=false or note:ref:notes`,
    );
  const [, name, type, target, onDelete, optional] = match as unknown as [
    string,
    string,
    string,
    string | undefined,
    string | undefined,
    string | undefined,
  ];
  if (!FIELD_NAME.test(name) || name.length > 40)
    throw new SpecError(`field '${name}': names are camelCase letters and digits, starting with a letter (at most 40)`);
  if (RESERVED_FIELDS.has(name))
    throw new SpecError(`field '${name}': reserved (every record has id, ownerId, createdAt and updatedAt already)`);
  if (seen.has(name)) throw new SpecError(`field '${name}' is given twice`);
  seen.add(name);
  const column = columnOf(name);
  if (type === 'ref') {
    if (!target) throw new SpecError(`field '${name}': a reference names its module, e.g. ${name}:ref:notes`);
    if (!exists(target))
      throw new SpecError(
        `field '${name}': no module '${target}' declared with the kit (src/modules/${target}/resource.ts)`,
      );
    const names = moduleNames(target);
    return {
      name,
      column,
      type: 'reference',
      optional: optional === '?',
      reference: {
        module: target,
        resource: names.resource,
        table: names.table,
        onDelete: (onDelete ?? 'restrict') as 'restrict' | 'cascade',
      },
    };
  }
  if (!SIMPLE_TYPES.has(type) || target || onDelete)
    throw new SpecError(
      `field '${name}': unknown type '${argument.slice(name.length + 1).replace(/\?$/, '')}' (one of ${FIELD_TYPES.join(', ')})`,
    );
  return { name, column, type: type as FieldType, optional: optional === '?' };
}

/** A comma-separated list of field names (or createdAt/updatedAt where `timestamps`), each checked. */
function fieldList(option: string, value: string, fields: FieldSpec[], timestamps: boolean): string[] {
  const names = value.split(',').filter(Boolean);
  for (const name of names) {
    const field = fields.find((candidate) => candidate.name === name);
    if (!field && !(timestamps && TIMESTAMPS.includes(name)))
      throw new SpecError(`${option} ${value}: '${name}' is not one of the fields`);
    if (field?.type === 'text')
      throw new SpecError(
        `${option} ${value}: '${name}' is text, which is not filtered, sorted or unique (use string)`,
      );
  }
  if (names.length === 0) throw new SpecError(`${option} needs field names, e.g. ${option} title`);
  return names;
}

export interface ModuleOptions {
  unique: string[];
  filter: string[];
  sort: string[];
  search: string[];
  action: string[];
  /** `--from open,in_progress`: the states the (one) action starts from. */
  from?: string[];
  /** `--read owner|authenticated|public`, `--write owner|admin|role:<name>`: who may read and write (access-policy.ts). */
  read?: string[];
  write?: string[];
  /** `--check 'endsAt > startsAt'` (repeatable): a rule across two fields. */
  check?: string[];
}

/** The declared access, or undefined for the default (each user their own records); a bad one is a SpecError. */
function accessOf(options: ModuleOptions): ResourceAccess | undefined {
  if ((options.read ?? []).length > 1 || (options.write ?? []).length > 1)
    throw new SpecError('--read and --write are given once each');
  const read = options.read?.[0] ?? 'owner';
  const write = options.write?.[0] ?? 'owner';
  const access = { read, write } as ResourceAccess;
  const problems = accessProblems(access);
  if (problems.length > 0) throw new SpecError(`--read ${read} --write ${write}: ${problems.join('; ')}`);
  return read === 'owner' && write === 'owner' ? undefined : access;
}

/** `--search a,b`: string or text fields. */
export function searchList(value: string, fields: FieldSpec[]): string[] {
  const names = value.split(',').filter(Boolean);
  if (names.length === 0) throw new SpecError('--search needs field names, e.g. --search title');
  for (const name of names) {
    const field = fields.find((candidate) => candidate.name === name);
    if (!field) throw new SpecError(`--search ${value}: '${name}' is not one of the fields`);
    if (field.type !== 'string' && field.type !== 'text')
      throw new SpecError(
        `--search ${value}: '${name}' (${field.type}) is not a string or text field: only those are searched`,
      );
  }
  return names;
}

/** The module to write, or a SpecError saying what is wrong with the arguments. */
export function parseSpec(
  name: string | undefined,
  fieldArguments: readonly string[],
  options: ModuleOptions,
  exists: (module: string) => boolean,
): ModuleSpec {
  checkModuleName(name);
  if (RESERVED_MODULES.has(name!)) throw new SpecError(`module name '${name}' is reserved`);
  if (fieldArguments.length === 0) throw new SpecError('at least one field is needed, e.g. title:string');
  const seen = new Set<string>();
  const fields = fieldArguments.map((argument) =>
    parseField(argument, seen, (module) => module !== name && exists(module)),
  );
  if (fields.every((field) => field.optional)) throw new SpecError('at least one field must be required (without ?)');
  const { camel, table, singular } = moduleNames(name!);
  if ((options.from ?? []).length > 0 && options.action.length !== 1)
    throw new SpecError('--from goes with exactly one --action');
  const actions = options.action.map((value) => {
    const { action, added } = parseAction(value, fields, seen, options.from?.[0]);
    fields.push(...added);
    return action;
  });
  if (new Set(actions.map((action) => action.name)).size !== actions.length)
    throw new SpecError('an action is given twice');
  const search = [...new Set(options.search.flatMap((list) => searchList(list, fields)))];
  for (const field of fields) field.search = search.includes(field.name);
  return {
    name: name!,
    camel,
    table,
    singular,
    fields,
    unique: options.unique.map((key) => fieldList('--unique', key, fields, false)),
    filters: options.filter.flatMap((list) => fieldList('--filter', list, fields, true)),
    sort: options.sort.flatMap((list) => fieldList('--sort', list, fields, true)),
    search,
    actions,
    access: accessOf(options),
    checks: parseChecks(options.check ?? [], fields),
  };
}
