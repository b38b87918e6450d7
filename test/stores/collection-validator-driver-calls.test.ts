import type { Connection } from 'mongoose';
import { defineResource, field } from '../../src/modules/kit';
import { SchemaDriftError } from '../../src/stores/errors';
import {
  applyValidators,
  collectionSchema,
  collectionValidator,
  declareValidator,
  validatorDifferences,
} from '../../src/stores/mongo/collection-validator';
import { translateMongoError } from '../../src/stores/mongo/mongo-errors';
import { CheckViolationError } from '../../src/stores/errors';

// What MongoDB is asked to hold a resource's field rules (no server runs here): a $jsonSchema validator,
// set by createCollection on a new collection and by collMod on one that exists, after counting the
// documents the rules refuse; a refused write (code 121) is the store's CheckViolationError.

const tickets = defineResource({
  name: 'kit-validated',
  table: 'kit_validated',
  modelName: 'KitValidated',
  fields: {
    status: field.string({ enum: ['open', 'closed'], default: 'open' }),
    priority: field.integer({ minimum: 1, maximum: 5, default: 3 }),
    code: field.string({ optional: true, minLength: 3, pattern: '^[A-Z]{3}$' }),
    label: field.string({ optional: true, enum: ['a', 'b'] }),
    title: field.string(),
  },
  migrations: [],
});

const SCHEMA = {
  bsonType: 'object',
  properties: {
    status: { enum: ['open', 'closed'] },
    priority: { minimum: 1, maximum: 5 },
    code: { minLength: 3, pattern: '^[A-Z]{3}$' },
    label: { enum: ['a', 'b', null] },
  },
};

/** `breaking`: what each count answers in turn (the last one after that); the ids are d1, d2, … */
function fakeConnection(
  existing: Record<string, { validator?: unknown; [option: string]: unknown }>,
  ...breaking: number[]
) {
  const calls: unknown[][] = [];
  const counts = breaking.length > 0 ? breaking : [0];
  let counted = 0;
  const next = () => counts[Math.min(counted++, counts.length - 1)]!;
  const db = {
    listCollections: (filter: { name: string }) => ({
      toArray: async () => (filter.name in existing ? [{ name: filter.name, options: existing[filter.name] }] : []),
    }),
    createCollection: async (name: string, options: unknown) => void calls.push(['createCollection', name, options]),
    command: async (command: unknown) => void calls.push(['command', command]),
    collection: (name: string) => ({
      countDocuments: async (filter: unknown) => (calls.push(['countDocuments', name, filter]), next()),
      find: (_filter: unknown, options: unknown) => ({
        limit: (limit: number) => ({
          toArray: async () => {
            calls.push(['find', name, options, limit]);
            return Array.from({ length: Math.min(limit, counts[counted - 1]!) }, (_, index) => ({
              _id: `d${index + 1}`,
            }));
          },
        }),
      }),
    }),
  };
  const connection = { db } as unknown as Connection;
  declareValidator(connection, tickets);
  return { connection, calls };
}

describe('MongoDB: field rules as a $jsonSchema validator', () => {
  it('derives the validator from the declaration (an optional enum takes null; fields without rules are left out)', () => {
    expect(collectionSchema(tickets)).toEqual(SCHEMA);
  });

  it('creates a missing collection with its validator, error on a refused write', async () => {
    const { connection, calls } = fakeConnection({});
    await applyValidators(connection);
    expect(calls).toEqual([
      [
        'createCollection',
        'kit_validated',
        { validator: { $jsonSchema: SCHEMA }, validationAction: 'error', validationLevel: 'strict' },
      ],
    ]);
  });

  it('counts the documents a changed rule refuses, then sets it with collMod; an unchanged one is left alone', async () => {
    const { connection, calls } = fakeConnection({
      kit_validated: { validator: { $jsonSchema: { bsonType: 'object', properties: { status: { enum: ['open'] } } } } },
    });
    await applyValidators(connection);
    const count = ['countDocuments', 'kit_validated', { $nor: [{ $jsonSchema: SCHEMA }] }];
    const collMod = {
      collMod: 'kit_validated',
      validator: { $jsonSchema: SCHEMA },
      validationAction: 'error',
      validationLevel: 'strict',
    };
    // Counted again after collMod, which does not look at the documents it finds.
    expect(calls).toEqual([count, ['command', collMod], count]);
    const same = fakeConnection({ kit_validated: { validator: { $jsonSchema: SCHEMA } } });
    await applyValidators(same.connection);
    expect(same.calls).toEqual([]);
    expect(await validatorDifferences(same.connection)).toEqual([]);
  });

  it('refuses a narrowed rule while documents break it, naming them, before changing anything', async () => {
    const { connection, calls } = fakeConnection({ kit_validated: {} }, 7);
    await expect(applyValidators(connection)).rejects.toThrow(
      '7 documents of kit_validated (first: d1, d2, d3, d4, d5) break the declared rules',
    );
    expect(calls.map(([call]) => call)).toEqual(['countDocuments', 'find']);
    const one = fakeConnection({ kit_validated: {} }, 1);
    await expect(applyValidators(one.connection)).rejects.toThrow(
      '1 document of kit_validated (d1) breaks the declared rules: change it first',
    );
  });

  it('puts the previous rules back when a document the new ones refuse was written between the count and collMod', async () => {
    const previous = { $jsonSchema: { bsonType: 'object', properties: { status: { enum: ['open'] } } } };
    const { connection, calls } = fakeConnection(
      { kit_validated: { validator: previous, validationLevel: 'moderate', validationAction: 'warn' } },
      0,
      1,
    );
    await expect(applyValidators(connection)).rejects.toThrow(
      '1 document of kit_validated (d1) was written against the declared rules while they were being set: the previous rules are back',
    );
    expect(calls.filter(([call]) => call === 'command').map(([, command]) => command)).toEqual([
      expect.objectContaining({ collMod: 'kit_validated', validator: { $jsonSchema: SCHEMA } }),
      { collMod: 'kit_validated', validator: previous, validationLevel: 'moderate', validationAction: 'warn' },
    ]);
  });

  it('names a collection without its validator at start-up, and tells a refused write (121) as a CheckViolationError', async () => {
    const { connection } = fakeConnection({ kit_validated: {} });
    expect(await validatorDifferences(connection)).toEqual([
      expect.stringMatching(
        /^collection kit_validated does not hold the declared rules as its validator \(\$jsonSchema, \$expr\): npm run db:migrate/,
      ),
    ]);
    expect(new SchemaDriftError(await validatorDifferences(connection)).message).toContain('kit_validated');
    const refused = Object.assign(new Error('Document failed validation'), { name: 'MongoServerError', code: 121 });
    expect(translateMongoError(refused)).toBeInstanceOf(CheckViolationError);
  });

  it("holds checks across fields as the validator's $expr: an optional side may be empty (null or missing), as a CHECK lets a null pass", () => {
    const bookings = defineResource({
      name: 'kit-checked',
      table: 'kit_checked',
      modelName: 'KitChecked',
      fields: {
        startsAt: field.datetime(),
        endsAt: field.datetime(),
        settledAt: field.datetime({ optional: true }),
        seats: field.integer({ minimum: 1 }),
        used: field.integer(),
      },
      checks: ['endsAt > startsAt', 'settledAt >= startsAt', 'used != seats'],
      migrations: [],
    });
    const empty = (name: string) => ({ $eq: [{ $ifNull: [`$${name}`, null] }, null] });
    expect(collectionValidator(bookings)).toEqual({
      $jsonSchema: { bsonType: 'object', properties: { seats: { minimum: 1 } } },
      $expr: {
        $and: [
          { $gt: ['$endsAt', '$startsAt'] },
          { $or: [empty('settledAt'), { $gte: ['$settledAt', '$startsAt'] }] },
          { $ne: ['$used', '$seats'] },
        ],
      },
    });
    const one = defineResource({
      name: 'kit-checked-one',
      table: 'kit_checked_one',
      modelName: 'KitCheckedOne',
      fields: { low: field.number(), high: field.number() },
      checks: ['low <= high'],
      migrations: [],
    });
    expect(collectionValidator(one)).toEqual({ $expr: { $lte: ['$low', '$high'] } });
  });
});
