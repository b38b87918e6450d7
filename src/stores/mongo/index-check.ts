import type { Connection } from 'mongoose';

/** What a model's schema declares and its collection lacks, as mongoose's `diffIndexes()` reports it. */
export interface MissingIndex {
  model: string;
  index: unknown;
}

/**
 * Every model registered on the connection whose collection lacks an index its schema declares, by
 * mongoose's own comparison (`Model.diffIndexes()`: fields in order, and the options that matter, unique
 * and TTL among them). Indexes the server has beyond the schema are not this check's business.
 */
export async function findMissingIndexes(connection: Pick<Connection, 'models'>): Promise<MissingIndex[]> {
  const missing: MissingIndex[] = [];
  for (const model of Object.values(connection.models)) {
    const { toCreate } = await model.diffIndexes();
    for (const index of toCreate) missing.push({ model: model.modelName, index });
  }
  return missing;
}
