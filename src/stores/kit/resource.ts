import type { SqlMigration } from '../sql/migrations/migration';
import { accessProblems, OWNER_ACCESS, type ResourceAccess } from './access-policy';
import { actionProblems, aKind, kindMatches, type ActionDeclaration } from './actions';
import { refuseMultipleCascadePaths } from './cascade-paths';
import { checkConstraintOf, checkProblems, checksOf, type CheckDeclaration } from './field-checks';
import { ruleProblems } from './field-rules';
import { columnOf, type FieldDefinition, type Fields, type OnDelete, type ReferencedResource } from './fields';

// A resource is what a generated module declares: its fields, which of them are unique (per owner),
// filtered and sorted, and its relational migrations. The kit's stores, routes, schemas and contract tests
// all read this one declaration.

/** Fields every record has: they may be filtered and sorted like declared ones. */
export const RECORD_TIMESTAMPS = ['createdAt', 'updatedAt'] as const;
export type FieldName<F extends Fields> = Extract<keyof F, string>;
export type QueryableName<F extends Fields> = FieldName<F> | (typeof RECORD_TIMESTAMPS)[number];

export interface ResourceDeclaration<F extends Fields> {
  /** As in the URL and the store's name: lower-case words joined by dashes (`invoice-items`). */
  name: string;
  /** The relational table and MongoDB collection (`invoice_items`). */
  table: string;
  /** The model name on both engine families (`InvoiceItem`). */
  modelName: string;
  fields: F;
  /** Unique keys, each one field or several, always per owner: a clash is a 409 naming the fields. */
  unique?: readonly (readonly FieldName<F>[])[];
  /** Fields a list may be filtered by (equality, `in`, ranges for numbers and dates, `null` for optional ones). */
  filters?: readonly QueryableName<F>[];
  /** Fields a list may be sorted by (id always breaks ties). Default order: newest first. */
  sort?: readonly QueryableName<F>[];
  /** String and text fields `?q=` searches: a case- and accent-insensitive substring of any of them (shadows.ts). */
  search?: readonly FieldName<F>[];
  /** Named changes at `POST /api/<name>/:id/<action>` (actions.ts): `archive: { set: { archivedAt: 'now' }, unless: 'archivedAt' }`. */
  actions?: Readonly<Record<string, ActionDeclaration<FieldName<F>>>>;
  /** Who may read and write its records (access-policy.ts); default each user their own (`owner`, `owner`). */
  access?: ResourceAccess;
  /** Rules across two fields (field-checks.ts): `'endsAt > startsAt'`; each held by the database too. */
  checks?: readonly CheckDeclaration<FieldName<F>>[];
  /** The relational schema, oldest first: never edit one that has run, add the next. */
  migrations: readonly SqlMigration[];
}

export interface Resource<F extends Fields = Fields> extends ResourceDeclaration<F> {
  readonly unique: readonly (readonly FieldName<F>[])[];
  readonly filters: readonly QueryableName<F>[];
  readonly sort: readonly QueryableName<F>[];
  readonly search: readonly FieldName<F>[];
  readonly actions: Readonly<Record<string, ActionDeclaration<FieldName<F>>>>;
  readonly access: ResourceAccess;
  readonly checks: readonly CheckDeclaration<FieldName<F>>[];
  /** The resources this one points at (their tables must exist first). */
  readonly dependsOn: readonly Resource[];
}

/** A field of another resource that points at records of this one. */
export interface Referrer {
  resource: Resource;
  field: string;
  onDelete: OnDelete;
}

const referrers = new Map<string, Referrer[]>();

/** Who points at records of this resource (declared so far): MongoDB's store enforces their on-delete rules. */
export function referrersOf(resource: ReferencedResource): readonly Referrer[] {
  return referrers.get(resource.name) ?? [];
}

/** What is wrong with the declared checks: each one's own, twice the same, or a constraint name PostgreSQL would cut. */
function crossFieldProblems(declaration: { fields: Fields; table: string; checks?: readonly string[] }): string[] {
  const texts = declaration.checks ?? [];
  const problems = texts.flatMap((text) => checkProblems(declaration.fields, text));
  if (problems.length > 0) return problems;
  const names = checksOf(declaration).map((check) => checkConstraintOf(declaration.table, check));
  if (new Set(names).size !== names.length) problems.push('a check is declared twice');
  for (const name of names.filter((candidate) => candidate.length > 63))
    problems.push(`the constraint ${name} is longer than 63 characters: shorten the table or field names`);
  return problems;
}

function check<F extends Fields>(declaration: ResourceDeclaration<F>): void {
  const where = `resource '${declaration.name}'`;
  const known = new Set<string>([...Object.keys(declaration.fields), ...RECORD_TIMESTAMPS]);
  for (const name of [
    ...(declaration.filters ?? []),
    ...(declaration.sort ?? []),
    ...(declaration.unique ?? []).flat(),
  ]) {
    if (!known.has(name)) throw new Error(`${where}: '${name}' is not one of its fields`);
    if (declaration.fields[name]?.kind === 'text')
      throw new Error(`${where}: '${name}' is text: it cannot be filtered, sorted or unique (use string)`);
  }
  for (const key of declaration.unique ?? []) if (key.length === 0) throw new Error(`${where}: an empty unique key`);
  for (const [name, definition] of Object.entries(declaration.fields)) {
    if (definition.default !== undefined && !kindMatches(definition, definition.default))
      throw new Error(`${where}: the default of '${name}' is not ${aKind(definition)}`);
    if (definition.readOnly && !definition.optional && definition.default === undefined)
      throw new Error(
        `${where}: '${name}' is read-only, so nobody can give it on create: make it optional or give it a default`,
      );
    const broken = ruleProblems(name, definition);
    if (broken.length > 0) throw new Error(`${where}: ${broken.join('; ')}`);
  }
  for (const name of declaration.search ?? []) {
    if (!['string', 'text'].includes(declaration.fields[name]?.kind ?? ''))
      throw new Error(`${where}: search '${name}' is not a string or text field`);
  }
  const problems = [
    ...actionProblems(declaration.fields, declaration.actions ?? {}),
    ...accessProblems(declaration.access ?? OWNER_ACCESS),
    ...crossFieldProblems(declaration),
  ];
  if (problems.length > 0) throw new Error(`${where}: ${problems.join('; ')}`);
}

/** Checks a resource declaration and records its references; a mistake fails at start-up with its name. */
export function defineResource<F extends Fields>(declaration: ResourceDeclaration<F>): Resource<F> {
  check(declaration);
  refuseMultipleCascadePaths(declaration);
  const references = Object.entries(declaration.fields).filter(([, definition]) => definition.references);
  const resource: Resource<F> = {
    ...declaration,
    unique: declaration.unique ?? [],
    filters: declaration.filters ?? [],
    sort: declaration.sort ?? [],
    search: declaration.search ?? [],
    actions: declaration.actions ?? {},
    access: declaration.access ?? OWNER_ACCESS,
    checks: declaration.checks ?? [],
    get dependsOn() {
      return references.map(([, definition]) => definition.references!.resource() as Resource);
    },
  };
  for (const [name, definition] of references) {
    const target = definition.references!.resource();
    referrers.set(target.name, [
      ...referrersOf(target),
      { resource: resource as unknown as Resource, field: name, onDelete: definition.references!.onDelete },
    ]);
  }
  return resource;
}

/** The declared fields, with their columns. */
export function fieldEntries(resource: Resource): [name: string, definition: FieldDefinition, column: string][] {
  return Object.entries(resource.fields).map(([name, definition]) => [name, definition, columnOf(name)]);
}

/** A resource of any fields, where only the declaration is walked (contract tests, registries). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each resource keeps its own field types where declared
export type AnyResource = Resource<any>;

/** The values of a record to create: those given, and each left-out field's default. */
export function withDefaults(resource: Resource, fields: Record<string, unknown>): Record<string, unknown> {
  const values = { ...fields };
  for (const [name, definition] of Object.entries(resource.fields))
    if (values[name] === undefined && definition.default !== undefined)
      values[name] = definition.default instanceof Date ? new Date(definition.default) : definition.default;
  return values;
}
