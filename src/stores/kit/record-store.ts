import type { OwnerScope } from './owner-scope';
import type { Page, PageRequest } from './pagination';

/** What every owned record carries besides its own fields. */
export interface OwnedRecord {
  /** A UUIDv7 string on every engine. */
  id: string;
  /** The id of the user who created it. */
  ownerId: string;
  /** Millisecond precision on every engine. */
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The CRUD every store of owned records offers, on every engine alike. `scope` limits each call to the
 * caller's own records (or none, for admins); an id outside the scope, unknown or malformed, is not found.
 */
export interface RecordStore<R extends OwnedRecord, Fields extends object> {
  create(ownerId: string, fields: Fields): Promise<R>;
  findById(id: string, scope: OwnerScope): Promise<R | null>;
  /** Newest first. */
  list(scope: OwnerScope, page: PageRequest): Promise<Page<R>>;
  /** The updated record (updatedAt refreshed), or null when not found in the scope. */
  update(id: string, scope: OwnerScope, changes: Partial<Fields>): Promise<R | null>;
  /** True when a record went. */
  delete(id: string, scope: OwnerScope): Promise<boolean>;
}
