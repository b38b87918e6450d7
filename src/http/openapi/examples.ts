import type { JsonSchema } from '../routing/route';

// An example value for a schema, derived from the schema itself (its examples, default, enum, format and
// bounds), so every operation shows a request and an answer without a second, hand-written copy that could
// drift from the contract. The linters (Spectral's oas3-valid-media-example) check each one against its
// schema. undefined when the schema cannot be satisfied this simply (a pattern with no example).

const FORMATS: Record<string, string> = {
  'date-time': '2030-01-02T03:04:05.678Z',
  date: '2030-01-02',
  uuid: '01890a5d-ac96-774b-bcce-b302099a8057',
  email: 'user@example.com',
  uri: 'https://example.com/',
};

function stringExample(schema: JsonSchema): string | undefined {
  if (typeof schema.format === 'string' && FORMATS[schema.format]) return FORMATS[schema.format];
  if (schema.pattern !== undefined) return undefined;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  const text = 'text'.padEnd(min, 'x');
  return text.length <= max ? text : text.slice(0, max);
}

function numberExample(schema: JsonSchema, integer: boolean): number {
  const minimum = typeof schema.minimum === 'number' ? schema.minimum : undefined;
  const maximum = typeof schema.maximum === 'number' ? schema.maximum : undefined;
  const value = minimum ?? (integer ? 1 : 1.5);
  return maximum !== undefined && value > maximum ? maximum : value;
}

function objectExample(schema: JsonSchema): Record<string, unknown> | undefined {
  const example: Record<string, unknown> = {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    const value = exampleOf(property);
    if (value === undefined && required.has(name)) return undefined;
    if (value !== undefined) example[name] = value;
  }
  return example;
}

/** A value the schema accepts, or undefined. */
export function exampleOf(schema: JsonSchema | undefined): unknown {
  if (!schema || typeof schema !== 'object') return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const choices = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(choices)) {
    const preferred = choices.find((choice) => choice.type !== 'null') ?? choices[0];
    return exampleOf(preferred);
  }
  if (Array.isArray(schema.allOf)) {
    const parts = (schema.allOf as JsonSchema[]).map((part) => exampleOf(part));
    return parts.some((part) => part === undefined) ? undefined : Object.assign({}, ...parts);
  }
  switch (schema.type) {
    case 'object':
      return objectExample(schema);
    case 'array': {
      const item = exampleOf(schema.items as JsonSchema | undefined);
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : 1;
      return item === undefined ? [] : Array.from({ length: Math.max(1, minItems) }, () => item);
    }
    case 'string':
      return stringExample(schema);
    case 'integer':
      return numberExample(schema, true);
    case 'number':
      return numberExample(schema, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return undefined;
  }
}
