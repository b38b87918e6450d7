import type { Fields, FieldsOf, RecordOf } from './fields';
import type { Condition, ListQuery } from './list-query';
import type { OwnerScope } from './owner-scope';
import type { Page } from './pagination';

/** A page of a list, and the cursor of the next one (null on the last page). */
export interface ResourcePage<R> extends Page<R> {
  nextCursor: string | null;
}

/**
 * The CRUD of a resource's records, the same on every engine. `scope` limits each call to the caller's own
 * records (or none, for admins); an id outside the scope, unknown or malformed, is not found.
 * Writes throw the resource's rules as domain errors: UniqueKeyError (a unique key clashes),
 * MissingReferenceError (a reference names no record of the same owner), ReferencedRecordError (a delete
 * that a 'restrict' reference forbids).
 */
export interface ResourceStore<F extends Fields> {
  create(ownerId: string, fields: FieldsOf<F>): Promise<RecordOf<F>>;
  findById(id: string, scope: OwnerScope): Promise<RecordOf<F> | null>;
  list(scope: OwnerScope, query: ListQuery): Promise<ResourcePage<RecordOf<F>>>;
  /**
   * The updated record (updatedAt refreshed), or null when not found in the scope or when it does not meet
   * `guard` (an action's precondition, e.g. `archivedAt` null). Read-only fields may be changed here: the
   * routes keep them out of bodies, actions write them. `at` is the write's time (updatedAt; default now):
   * an action passes the instant its `'now'` fields hold, so closedAt equals updatedAt.
   */
  update(id: string, scope: OwnerScope, changes: Partial<FieldsOf<F>>, guard?: readonly Condition[], at?: Date): Promise<RecordOf<F> | null>;
  /** True when a record went (with those pointing at it by 'cascade'). */
  delete(id: string, scope: OwnerScope): Promise<boolean>;
}
