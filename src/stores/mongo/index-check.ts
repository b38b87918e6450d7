import type { Connection } from 'mongoose';

/** An index as the server lists it (`collection.indexes()`). */
export interface ExistingIndex {
  key: Record<string, unknown>;
  unique?: boolean;
  expireAfterSeconds?: number;
}

/** An index a schema declares: its fields and options (`schema.indexes()`). */
export type DeclaredIndex = [Record<string, unknown>, Record<string, unknown>];

function sameKey(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const left = Object.entries(a);
  const right = Object.entries(b);
  return left.length === right.length && left.every(([field, order], i) => right[i]?.[0] === field && String(right[i]?.[1]) === String(order));
}

/** The declared indexes that have no match among the existing ones (same fields in order, same unique/TTL). */
export function missingIndexes(declared: readonly DeclaredIndex[], existing: readonly ExistingIndex[]): DeclaredIndex[] {
  return declared.filter(([key, options]) => {
    const unique = options.unique === true;
    const ttl = options.expireAfterSeconds as number | undefined;
    return !existing.some((index) => sameKey(index.key, key) && (index.unique === true) === unique && index.expireAfterSeconds === ttl);
  });
}

/** Every model registered on the connection whose collection lacks an index its schema declares. */
export async function findMissingIndexes(connection: Connection): Promise<{ model: string; index: DeclaredIndex }[]> {
  const missing: { model: string; index: DeclaredIndex }[] = [];
  for (const model of Object.values(connection.models)) {
    const existing = (await model.collection.indexes()) as ExistingIndex[];
    for (const index of missingIndexes(model.schema.indexes() as DeclaredIndex[], existing)) missing.push({ model: model.modelName, index });
  }
  return missing;
}
