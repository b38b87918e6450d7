import type { ResourceAccess } from './access-policy';
import type { FieldRules } from './field-rules';
import type { OwnedRecord } from './record-store';

// The fields of a resource, declared once: each one's kind, whether it may be empty (null), and the rules
// that make it compare alike on every engine. From these the kit derives the record's TypeScript type,
// the request and answer schemas, the models of both engine families and the list queries.

/** The TypeScript value of each kind of field, as the store returns it. */
export interface FieldValues {
  string: string;
  text: string;
  integer: number;
  number: number;
  boolean: boolean;
  datetime: Date;
  reference: string;
}

export type FieldKind = keyof FieldValues;

/** What happens to records that point at a record being deleted. */
export type OnDelete = 'restrict' | 'cascade';

/** A field as declared: its kind, emptiness, default, and its rules (field-rules.ts: enum, minimum, maximum, minLength, pattern). */
export interface FieldDefinition<
  K extends FieldKind = FieldKind,
  Optional extends boolean = boolean,
  Omittable extends boolean = boolean,
> extends FieldRules {
  readonly kind: K;
  /** May be null (and left out on create). */
  readonly optional: Optional;
  /**
   * May be left out on create: optional, defaulted or read-only. A type-level mark (FieldsOf reads it);
   * at run time it says the same.
   */
  readonly omittable: Omittable;
  /** The value the store gives the field on create when it is left out (every kind but reference). */
  readonly default?: FieldValues[K];
  /** Set by the store or an action only: a POST or PATCH body naming it is a 422. */
  readonly readOnly?: boolean;
  /** string and text: the longest value accepted. */
  readonly maxLength?: number;
  /**
   * string: equality, filters and uniqueness ignore case (compared on a lower-cased shadow column kept by
   * the store; sorting stays by code point of the value as given).
   */
  readonly caseInsensitive?: boolean;
  /** reference: the resource pointed at (a record of the same owner) and the on-delete rule. */
  readonly references?: { readonly resource: () => ReferencedResource; readonly onDelete: OnDelete };
}

/** Enough of a resource to point at it (the full type lives in resource.ts, which imports this file). */
export interface ReferencedResource {
  readonly name: string;
  readonly table: string;
  readonly modelName: string;
  /** Who reads its records: a reference is checked in that scope (access-policy.ts). */
  readonly access?: ResourceAccess;
}

export type Fields = Record<string, FieldDefinition>;

interface Options<Optional extends boolean> {
  optional?: Optional;
  /** Set by the store or an action only (optional, or with a default): refused in request bodies. */
  readOnly?: boolean;
}

/** What every kind but reference may add: a default applied on create. */
interface Defaulted<V> {
  default?: V;
}

type Range = Pick<FieldRules, 'minimum' | 'maximum'>;

/** Whether a field's options let a caller leave it out on create. */
type OmittableOf<Optional extends boolean, O> = Optional extends true
  ? true
  : O extends { default: unknown }
    ? true
    : O extends { readOnly: true }
      ? true
      : false;

// NoInfer: a field written inside a declaration typed `Fields` must not take `boolean` from that context.
function make<K extends FieldKind, Optional extends boolean, O>(
  kind: K,
  options: Options<Optional> &
    Defaulted<FieldValues[K]> &
    Omit<FieldDefinition, 'kind' | 'optional' | 'omittable' | 'default'>,
): FieldDefinition<K, NoInfer<Optional>, NoInfer<OmittableOf<Optional, O>>> {
  const { optional, ...rest } = options;
  const omittable = optional === true || options.default !== undefined || options.readOnly === true;
  return Object.freeze({
    ...rest,
    kind,
    optional: (optional ?? false) as Optional,
    omittable: omittable as OmittableOf<Optional, O>,
  });
}

/** The field kinds. `optional: true` lets a field be null; `default` fills it on create; `readOnly` keeps it out of request bodies. */
export const field = {
  /**
   * A short string (≤ maxLength, default 200), compared by code point, case- and space-sensitive unless
   * `caseInsensitive`. Rules: `enum` (the only values allowed), `minLength`, `pattern` (field-rules.ts).
   */
  string: <Optional extends boolean = false, const O extends Defaulted<string> & Options<Optional> = object>(
    options: O &
      Options<Optional> &
      Pick<FieldRules, 'enum' | 'minLength' | 'pattern'> & { maxLength?: number; caseInsensitive?: boolean } = {} as O,
  ) =>
    make<'string', Optional, O>('string', {
      ...options,
      maxLength: options.maxLength ?? 200,
      caseInsensitive: options.caseInsensitive ?? false,
    }),
  /** Long text (≤ maxLength, default 10 000); not filtered, sorted or unique. */
  text: <Optional extends boolean = false, const O extends Defaulted<string> & Options<Optional> = object>(
    options: O & Options<Optional> & { maxLength?: number } = {} as O,
  ) => make<'text', Optional, O>('text', { ...options, maxLength: options.maxLength ?? 10_000 }),
  /** A 32-bit signed integer; `minimum`/`maximum` narrow it (inclusive). */
  integer: <Optional extends boolean = false, const O extends Defaulted<number> & Options<Optional> = object>(
    options: O & Options<Optional> & Range = {} as O,
  ) => make<'integer', Optional, O>('integer', options),
  /** A double; `minimum`/`maximum` narrow it (inclusive). */
  number: <Optional extends boolean = false, const O extends Defaulted<number> & Options<Optional> = object>(
    options: O & Options<Optional> & Range = {} as O,
  ) => make<'number', Optional, O>('number', options),
  boolean: <Optional extends boolean = false, const O extends Defaulted<boolean> & Options<Optional> = object>(
    options: O & Options<Optional> = {} as O,
  ) => make<'boolean', Optional, O>('boolean', options),
  /** An instant with millisecond precision (ISO 8601 in JSON). */
  datetime: <Optional extends boolean = false, const O extends Defaulted<Date> & Options<Optional> = object>(
    options: O & Options<Optional> = {} as O,
  ) => make<'datetime', Optional, O>('datetime', options),
  /**
   * The id of a record of another resource owned by the same user. `onDelete`: deleting that record is
   * refused while this one points at it ('restrict', the default: 409), or deletes this one too ('cascade').
   */
  reference: <Optional extends boolean = false>(
    resource: () => ReferencedResource,
    options: Options<Optional> & { onDelete?: OnDelete } = {},
  ) =>
    make<'reference', Optional, Options<Optional>>('reference', {
      optional: options.optional,
      readOnly: options.readOnly,
      references: { resource, onDelete: options.onDelete ?? 'restrict' },
    }),
};

type ValueOf<F> =
  F extends FieldDefinition<infer K, infer Optional> ? FieldValues[K] | (Optional extends true ? null : never) : never;
type OptionalNames<F extends Fields> = {
  [N in keyof F]: F[N] extends FieldDefinition<FieldKind, boolean, true> ? N : never;
}[keyof F];
type RequiredNames<F extends Fields> = Exclude<keyof F, OptionalNames<F>>;

/** Every declared field's value (an empty optional one is null). */
export type ValuesOf<F extends Fields> = { -readonly [N in keyof F]: ValueOf<F[N]> };

/** A stored record: id, owner, timestamps and every declared field (an empty optional one is null). */
export type RecordOf<F extends Fields> = OwnedRecord & ValuesOf<F>;

/** What a caller sets on create: the required fields; optional, defaulted and read-only ones if given. */
export type FieldsOf<F extends Fields> = { [N in RequiredNames<F>]: ValueOf<F[N]> } & {
  [N in OptionalNames<F>]?: ValueOf<F[N]>;
};

/** `dueAt` → `due_at`: the column of a field. */
export function columnOf(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** The shadow of a case-insensitive string: its value lower-cased, for equality and uniqueness. */
export function foldedNameOf(name: string): string {
  return `${name}Folded`;
}

/** The column of that shadow, from the field's column (`title_folded`; columnOf(foldedNameOf(name)) alike). */
export function foldedColumnOf(column: string): string {
  return `${column}_folded`;
}

/** The folded value a case-insensitive field is compared by (Unicode NFC, then lower case). */
export function fold(value: string): string {
  return value.normalize('NFC').toLowerCase();
}
