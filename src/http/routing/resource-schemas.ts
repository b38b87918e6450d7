import { Type, type TSchema } from '@sinclair/typebox';
import { isCatalogue } from '../../stores/kit/access-policy';
import { allowedInWords, hasRules, ruleKeywords, rulesOf } from '../../stores/kit/field-rules';
import type { FieldDefinition } from '../../stores/kit/fields';
import { fieldEntries, type Resource } from '../../stores/kit/resource';
import { governedFields } from '../../stores/kit/actions';
import { sortKeysOf } from '../../stores/kit/list-indexes';
import { pageQuery, ownedRecordSchema, timestamp } from './record-schemas';

// What a resource's routes take and answer, derived from its field declarations: the bodies, the record,
// the page and the list query. The routes validate with these and the API document shows them, so a field
// declared once is checked, typed and documented alike.

/** The largest `[in]` list a filter takes. */
export const MAX_IN_VALUES = 100;

/** A field's value in a request body (datetimes: ISO 8601 strings), with its rules' keywords (field-rules.ts). */
function bodyValue(definition: FieldDefinition): TSchema {
  const schema = kindValue(definition);
  if (!hasRules(definition)) return schema;
  const rules = rulesOf(definition);
  return {
    ...schema,
    ...ruleKeywords(rules),
    description: `${schema.description ? `${schema.description}; ` : ''}${allowedInWords(rules)}`,
  };
}

function kindValue(definition: FieldDefinition): TSchema {
  switch (definition.kind) {
    case 'string':
      return Type.String({ minLength: 1, maxLength: definition.maxLength });
    case 'text':
      return Type.String({ maxLength: definition.maxLength });
    case 'integer':
      return Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 });
    case 'number':
      return Type.Number();
    case 'boolean':
      return Type.Boolean();
    case 'datetime':
      return Type.String({ format: 'date-time', maxLength: 40 });
    case 'reference':
      return Type.String({
        format: 'uuid',
        description: `The id (UUIDv7) of one of the caller's ${definition.references!.resource().name}`,
      });
  }
}

const nullable = (schema: TSchema, definition: FieldDefinition) =>
  definition.optional ? Type.Union([schema, Type.Null()]) : schema;

/** The fields a request body may carry: all but the read-only ones and those actions set (a body naming one is a 422 naming it). */
const writable = (resource: Resource) => {
  const governed = governedFields(resource.actions);
  return fieldEntries(resource).filter(([name, definition]) => !definition.readOnly && !governed.has(name));
};

/** A declared default as JSON shows it. */
const jsonDefault = (value: unknown) => (value instanceof Date ? value.toISOString() : value);

/** POST: the required fields and any optional or defaulted ones (the store fills the default), nothing else. */
export function createBodySchema(resource: Resource) {
  const properties = Object.fromEntries(
    writable(resource).map(([name, definition]) => {
      const value = nullable(bodyValue(definition), definition);
      if (definition.default !== undefined)
        return [
          name,
          Type.Optional({ ...value, default: jsonDefault(definition.default), description: 'Left out: the default' }),
        ];
      return [name, definition.optional ? Type.Optional(value) : value];
    }),
  );
  return Type.Object(properties, { additionalProperties: false });
}

/** PATCH: any of the writable fields, at least one; null empties an optional one. */
export function updateBodySchema(resource: Resource) {
  const properties = Object.fromEntries(
    writable(resource).map(([name, definition]) => [name, Type.Optional(nullable(bodyValue(definition), definition))]),
  );
  return Type.Object(properties, { additionalProperties: false, minProperties: 1 });
}

/** One record as answered; datetimes are ISO 8601 strings with milliseconds; read-only fields say so. */
export function recordSchema(resource: Resource) {
  const governed = governedFields(resource.actions);
  const properties = Object.fromEntries(
    fieldEntries(resource).map(([name, definition]) => {
      const value = nullable(definition.kind === 'datetime' ? timestamp : bodyValue(definition), definition);
      if (governed.has(name))
        return [
          name,
          {
            ...value,
            readOnly: true,
            description: `Read-only: set by the ${actionsSetting(resource, name).join(' and ')} action${actionsSetting(resource, name).length > 1 ? 's' : ''}`,
          },
        ];
      return [
        name,
        definition.readOnly
          ? { ...value, readOnly: true, description: 'Read-only: set by the store or an action' }
          : value,
      ];
    }),
  );
  return ownedRecordSchema(properties);
}

/** The actions that set a field. */
const actionsSetting = (resource: Resource, name: string) =>
  Object.entries(resource.actions)
    .filter(([, action]) => name in action.set)
    .map(([action]) => action);

/** The kind of a field a list may filter or sort by, timestamps included. */
export function queryableDefinition(resource: Resource, name: string): FieldDefinition {
  return resource.fields[name] ?? { kind: 'datetime', optional: false, omittable: false };
}

/** A filter value in the query string, before it is read as the field's kind; an equality keeps the field's rules, a range compares freely. */
function filterValue(definition: FieldDefinition, comparison: 'eq' | 'range' = 'eq'): TSchema {
  if (comparison === 'range') return kindValue(definition);
  if (definition.kind === 'reference' || (definition.kind === 'string' && !definition.enum))
    return Type.String({ maxLength: definition.maxLength ?? 36 });
  return bodyValue(definition);
}

/**
 * `?limit&offset&cursor&count&sort` and, per filtered field, `name` (equals), `name[in]` (comma-separated),
 * `name[gt|gte|lt|lte]` (numbers and datetimes) and `name[null]` (optional fields).
 */
export function listQuerySchema(resource: Resource) {
  const properties: Record<string, TSchema> = { ...pageQuery.properties };
  properties.sort = Type.Optional(
    Type.Unsafe<string>({
      type: 'string',
      enum: sortKeysOf(resource).flatMap((key) => [key, `-${key}`]),
      description:
        'One key, `-` for descending (default -createdAt, newest first); id breaks ties. Each order has its index: a page costs a page at any size.',
    }),
  );
  // A catalogue's records are nobody's: no owner to narrow to. Where every reader sees all, anyone may narrow.
  if (!isCatalogue(resource.access)) {
    const who =
      resource.access.read === 'owner' ? "Admins only: this user's records (anyone else: 422)" : "This user's records";
    properties.ownerId = Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: who }));
  }
  if (resource.search.length > 0) {
    properties.q = Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: `Records whose ${resource.search.join(' or ')} contains this text, ignoring case and accents (\`ecole\` finds \`École\`); \`%\` and \`_\` are plain characters. PostgreSQL serves a term of 3 characters or more from a trigram index; elsewhere, and for shorter terms, a page examines at most LIST_SEARCH_SCAN_LIMIT records and may end early with \`scanCapped\` and a \`nextCursor\`: the same records, in the same order, over the pages.`,
      }),
    );
  }
  for (const name of resource.filters) {
    const definition = queryableDefinition(resource, name);
    properties[name] = Type.Optional({
      ...filterValue(definition),
      description: `Equal to (${definition.caseInsensitive ? 'ignoring case' : 'exactly'})`,
    });
    if (definition.kind !== 'boolean')
      properties[`${name}[in]`] = Type.Optional(
        Type.String({ maxLength: 4000, description: `One of these, comma-separated (at most ${MAX_IN_VALUES})` }),
      );
    if (['integer', 'number', 'datetime'].includes(definition.kind)) {
      for (const comparison of ['gt', 'gte', 'lt', 'lte'])
        properties[`${name}[${comparison}]`] = Type.Optional({
          ...filterValue(definition, 'range'),
          description: `${comparison} this`,
        });
    }
    if (definition.optional)
      properties[`${name}[null]`] = Type.Optional(
        Type.Boolean({ description: 'true: only records where it is empty; false: only where it is set' }),
      );
  }
  return Type.Object(properties, { additionalProperties: false });
}
