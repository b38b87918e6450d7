import type { Fields, FieldsOf, RecordOf } from './fields';
import type { ListQuery } from './list-query';
import type { OwnerScope } from './owner-scope';
import type { Page } from './pagination';
import type { UpdateOptions, WriteJudge } from './write-rules';

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
  /** `judge`: the module's own check of the record as it will be (resourceModule's checkWrite), before it is written. */
  create(ownerId: string, fields: FieldsOf<F>, options?: { judge?: WriteJudge }): Promise<RecordOf<F>>;
  findById(id: string, scope: OwnerScope): Promise<RecordOf<F> | null>;
  list(scope: OwnerScope, query: ListQuery): Promise<ResourcePage<RecordOf<F>>>;
  /**
   * The updated record (updatedAt moved on), or null when not found in the scope or when it does not meet
   * `options.guard` (an action's precondition, e.g. `archivedAt` null). Read-only fields may be changed here:
   * the routes keep them out of bodies, actions write them; `options.stamped` fields take the write's time,
   * as updatedAt does. The record as it will be is judged (declared checks, `options.judge`) against the
   * stored one, and written only while that is still what is stored (write-rules.ts).
   */
  update(
    id: string,
    scope: OwnerScope,
    changes: Partial<FieldsOf<F>>,
    options?: UpdateOptions,
  ): Promise<RecordOf<F> | null>;
  /** True when a record went (with those pointing at it by 'cascade'). */
  delete(id: string, scope: OwnerScope): Promise<boolean>;
}
