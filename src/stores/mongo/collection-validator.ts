import type { Connection } from 'mongoose';
import { SchemaDriftError } from '../errors';
import { checksOf, type CheckOperator } from '../kit/field-checks';
import { hasRules, ruleKeywords, rulesOf } from '../kit/field-rules';
import { fieldEntries, type Resource } from '../kit/resource';

// A resource's field rules (field-rules.ts) and its checks across fields (field-checks.ts) held by MongoDB
// itself: a validator of `$jsonSchema` and `$expr` on its collection (validationAction error, validationLevel
// strict), so a document written by another program cannot break them either, as the relational engines'
// CHECK constraints hold them. migrate() sets it
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

const EXPRESSION_OPERATORS: Record<CheckOperator, string> = {
  '<': '$lt',
  '<=': '$lte',
  '>': '$gt',
  '>=': '$gte',
  '=': '$eq',
  '!=': '$ne',
};

/**
 * The `$expr` of a resource's checks across fields: each compares its two fields, or has an optional side
 * empty (null or missing: `$ifNull` reads both as null), as a relational CHECK lets a null pass.
 */
export function collectionExpression(resource: Resource): Record<string, unknown> | undefined {
  const each = checksOf(resource).map((check) => {
    const compared = { [EXPRESSION_OPERATORS[check.operator]]: [`$${check.left}`, `$${check.right}`] };
    const empty = [check.left, check.right]
      .filter((name) => resource.fields[name]!.optional)
      .map((name) => ({ $eq: [{ $ifNull: [`$${name}`, null] }, null] }));
    return empty.length === 0 ? compared : { $or: [...empty, compared] };
  });
  if (each.length === 0) return undefined;
  return each.length === 1 ? each[0] : { $and: each };
}

/** The validator of a resource's collection: its fields' rules as `$jsonSchema`, its checks as `$expr` (undefined when it has neither). */
export function collectionValidator(resource: Resource): JsonSchema | undefined {
  const [$jsonSchema, $expr] = [collectionSchema(resource), collectionExpression(resource)];
  if (!$jsonSchema && !$expr) return undefined;
  return { ...($jsonSchema ? { $jsonSchema } : {}), ...($expr ? { $expr } : {}) };
}

/** Records the validator a resource's collection must hold (the store calls it as it defines the model). */
export function declareValidator(connection: Connection, resource: Resource): void {
  const schema = collectionValidator(resource);
  if (!schema) return;
  const known = declared.get(connection) ?? new Map<string, JsonSchema>();
  known.set(resource.table, schema);
  declared.set(connection, known);
}

async function collectionOptions(
  connection: Connection,
  name: string,
): Promise<{ exists: boolean; validator?: unknown; validationLevel?: string; validationAction?: string }> {
  const [found] = (await connection.db!.listCollections({ name }).toArray()) as {
    options?: { validator?: unknown; validationLevel?: string; validationAction?: string };
  }[];
  return { exists: found !== undefined, ...found?.options };
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The documents `validator` refuses: how many, and the ids of the first few (named in a refusal). */
async function breakingDocuments(
  connection: Connection,
  name: string,
  validator: object,
): Promise<{ count: number; named: string } | undefined> {
  const collection = connection.db!.collection(name);
  const count = await collection.countDocuments({ $nor: [validator] });
  if (count === 0) return undefined;
  const first = await collection
    .find({ $nor: [validator] }, { projection: { _id: 1 } })
    .limit(5)
    .toArray();
  const ids = first.map((document) => String(document._id)).join(', ');
  const more = count > first.length ? 'first: ' : '';
  return { count, named: `${count === 1 ? '1 document' : `${count} documents`} of ${name} (${more}${ids})` };
}

/**
 * Gives each declared collection its validator: created with it when missing, else collMod, after counting
 * the documents the new rules refuse (a non-zero count stops, naming them, before anything changes). collMod
 * does not look at the documents it finds, and the previous release may write one the new rules refuse between
 * the count and collMod: they are counted again after it, and any found puts the previous rules back, naming them.
 */
export async function applyValidators(connection: Connection): Promise<void> {
  for (const [name, validator] of declared.get(connection) ?? []) {
    const current = await collectionOptions(connection, name);
    if (!current.exists) {
      await connection.db!.createCollection(name, { validator, validationAction: 'error', validationLevel: 'strict' });
      continue;
    }
    if (sameJson(current.validator, validator)) continue;
    const before = await breakingDocuments(connection, name, validator);
    if (before)
      throw new Error(
        `${before.named} ${before.count === 1 ? 'breaks' : 'break'} the declared rules: change ${before.count === 1 ? 'it' : 'them'} first, then migrate again`,
      );
    await connection.db!.command({ collMod: name, validator, validationAction: 'error', validationLevel: 'strict' });
    const after = await breakingDocuments(connection, name, validator);
    if (after) {
      const { validationLevel = 'strict', validationAction = 'error' } = current;
      await connection.db!.command({
        collMod: name,
        validator: current.validator ?? {},
        validationLevel,
        validationAction,
      });
      throw new Error(
        `${after.named} ${after.count === 1 ? 'was' : 'were'} written against the declared rules while they were being set: the previous rules are back; change ${after.count === 1 ? 'it' : 'them'}, then migrate again`,
      );
    }
  }
}

/** Each declared validator the server does not hold as declared (start-up refuses to serve meanwhile). */
export async function validatorDifferences(connection: Connection): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, validator] of declared.get(connection) ?? []) {
    const current = await collectionOptions(connection, name);
    if (!sameJson(current.validator, validator))
      problems.push(
        `collection ${name} does not hold the declared rules as its validator ($jsonSchema, $expr): npm run db:migrate (or a start with MIGRATE_ON_START=true) sets it`,
      );
  }
  return problems;
}

/** checkSchema()'s refusal. */
export async function refuseValidatorDrift(connection: Connection): Promise<void> {
  const problems = await validatorDifferences(connection);
  if (problems.length > 0) throw new SchemaDriftError(problems);
}
