import { addPlainly, type IndexDdl } from './index-ddl';

// SQLite: one writer at a time, so a plain CREATE INDEX; a partial unique index leaves the nulls out.

export const sqliteIndexes: IndexDdl = {
  addOnline: addPlainly,
  partialUniqueKeys: true,
};
