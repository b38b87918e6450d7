import type { Connection } from 'mongoose';
import { SchemaDriftError } from '../errors';
import { hasRules, ruleKeywords, rulesOf } from '../kit/field-rules';
import { fieldEntries, type Resource } from '../kit/resource';

// A resource's field rules (field-rules.ts) held by MongoDB itself: a `$jsonSchema` validator on its
// collection (validationAction error, validationLevel strict), so a document written by another program
// cannot break them either, as the relational engines' CHECK constraints hold them. migrate() sets it
// (createCollection with it, or collMod), after counting the documents a narrowed rule would refuse;
// checkSchema() compares what the server holds with the declarations.

type JsonSchema = Record<string, unknown>;

const declared = new WeakMap<Connection, Map<string, JsonSchema>>();

/** The `$jsonSchema` of a resource's rules (numeric keywords apply to numbers only, string ones to strings; an optional enum takes null). */
export function collectionSchema(resource: Resource): JsonSchema | undefined {
  const properties: Record<string, unknown> = {};
  for (const [name, definition] of fieldEntries(resource)) {
    if (!hasRules(definition)) continue;
    const keywords = ruleKeywords(rulesOf(definition));
    if (Array.isArray(keywords.enum) && definition.optional) keywords.enum = [...keywords.enum, null];
    properties[name] = keywords;
  }
  return Object.keys(properties).length === 0 ? undefined : { bsonType: 'object', properties };
}

/** Records the validator a resource's collection must hold (the store calls it as it defines the model). */
export function declareValidator(connection: Connection, resource: Resource): void {
  const schema = collectionSchema(resource);
  if (!schema) return;
  const known = declared.get(connection) ?? new Map<string, JsonSchema>();
  known.set(resource.table, schema);
  declared.set(connection, known);
}

async function collectionOptions(connection: Connection, name: string): Promise<{ exists: boolean; validator?: unknown }> {
  const [found] = (await connection.db!.listCollections({ name }).toArray()) as { options?: { validator?: unknown } }[];
  return { exists: found !== undefined, validator: found?.options?.validator };
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Gives each declared collection its validator: created with it when missing, else collMod, after counting
 * the documents the new rules refuse (a non-zero count stops, naming it, before anything changes).
 */
export async function applyValidators(connection: Connection): Promise<void> {
  for (const [name, $jsonSchema] of declared.get(connection) ?? []) {
    const validator = { $jsonSchema };
    const current = await collectionOptions(connection, name);
    if (!current.exists) {
      await connection.db!.createCollection(name, { validator, validationAction: 'error', validationLevel: 'strict' });
      continue;
    }
    if (sameJson(current.validator, validator)) continue;
    const breaking = await connection.db!.collection(name).countDocuments({ $nor: [validator] });
    if (breaking > 0) throw new Error(`${breaking} document${breaking === 1 ? '' : 's'} of ${name} break the declared rules: change them first, then migrate again`);
    await connection.db!.command({ collMod: name, validator, validationAction: 'error', validationLevel: 'strict' });
  }
}

/** Each declared validator the server does not hold as declared (start-up refuses to serve meanwhile). */
export async function validatorDifferences(connection: Connection): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, $jsonSchema] of declared.get(connection) ?? []) {
    const current = await collectionOptions(connection, name);
    if (!sameJson(current.validator, { $jsonSchema })) problems.push(`collection ${name} does not hold the declared rules as its $jsonSchema validator: npm run db:migrate (or a start with MIGRATE_ON_START=true) sets it`);
  }
  return problems;
}

/** checkSchema()'s refusal. */
export async function refuseValidatorDrift(connection: Connection): Promise<void> {
  const problems = await validatorDifferences(connection);
  if (problems.length > 0) throw new SchemaDriftError(problems);
}
