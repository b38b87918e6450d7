import type { Schema, SchemaDefinition, SchemaOptions } from 'mongoose';
import { newId } from '../ids';

// The schema helpers of MongoStoreContext. The Schema class is passed in: this file is loaded with the
// store definitions on every engine, mongoose only on MongoDB.

/** String UUIDv7 `_id` (like the relational ids), createdAt/updatedAt kept by mongoose, no version key. */
export function recordSchema(
  SchemaClass: typeof Schema,
  fields: SchemaDefinition,
  options: SchemaOptions = {},
): Schema {
  return new SchemaClass(
    { _id: { type: String, default: newId }, ...fields },
    { timestamps: true, versionKey: false, ...options },
  );
}

/** A record schema with a required `ownerId` and the index the owner's newest-first list uses. */
export function ownedRecordSchema(
  SchemaClass: typeof Schema,
  fields: SchemaDefinition,
  options: SchemaOptions = {},
): Schema {
  const schema = recordSchema(SchemaClass, { ownerId: { type: String, required: true }, ...fields }, options);
  schema.index({ ownerId: 1, createdAt: -1, _id: -1 }); // the owner's list order, tiebreak included
  return schema;
}
