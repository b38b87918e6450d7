import type { AuthUser } from '../../auth/tokens';
import { WriteRefusedError } from '../../stores/errors';
import { readScope } from '../../stores/kit/access-policy';
import type { Fields, RecordOf, ValuesOf } from '../../stores/kit/fields';
import type { ListQuery } from '../../stores/kit/list-query';
import { MAX_PAGE_SIZE } from '../../stores/kit/pagination';
import type { Resource } from '../../stores/kit/resource';
import type { ResourcePage, ResourceStore } from '../../stores/kit/resource-store';
import type { WriteJudge } from '../../stores/kit/write-rules';

// A module's own check of its writes, for what no declaration says (`resourceModule(resource, { checkWrite })`):
// given the record as it will be stored, the stored one, the caller and reads of any opened resource, it
// answers the fields it refuses, each with why (422). The store runs it on create, update and every action,
// after the declared rules, on the record the write lands on (write-rules.ts).

/** Another resource's records, as the caller may read them. */
export interface RecordReader<F extends Fields> {
  findById(id: string): Promise<RecordOf<F> | null>;
  /** One page (at most MAX_PAGE_SIZE records; newest first unless `sort` says otherwise). */
  list(query?: Partial<ListQuery>): Promise<ResourcePage<RecordOf<F>>>;
}

export interface WriteCheckInput<F extends Fields> {
  /** The record as it will be stored: every field (a create's defaults applied), and its owner. */
  record: ValuesOf<F> & { ownerId: string };
  /** The record as stored now; null on create. */
  stored: RecordOf<F> | null;
  /** `create`, `update`, or the action's name. */
  write: string;
  caller: AuthUser;
  read<G extends Fields>(resource: Resource<G>): RecordReader<G>;
}

/** Field → what is wrong with it; nothing (or an empty object) lets the write go on. */
export type FieldErrors = Record<string, string>;

export type WriteCheck<F extends Fields> = (
  input: WriteCheckInput<F>,
) => FieldErrors | undefined | Promise<FieldErrors | undefined>;

/** The reads a check is given: each resource's store, opened with this database, in the caller's read scope. */
function readerOf<G extends Fields>(store: ResourceStore<G>, resource: Resource<G>, caller: AuthUser): RecordReader<G> {
  const scope = readScope(resource.access, caller);
  return {
    findById: (id) => store.findById(id, scope),
    list: (query = {}) =>
      store.list(scope, {
        where: [],
        sort: [],
        offset: 0,
        ...query,
        limit: Math.min(query.limit ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE),
      }),
  };
}

/** The store's judge of one write by a module's check (undefined when it declares none). */
export function writeJudge<F extends Fields>(
  check: WriteCheck<F> | undefined,
  write: string,
  caller: AuthUser,
  storeOf: (resource: Resource) => ResourceStore<Fields>,
): WriteJudge | undefined {
  if (!check) return undefined;
  const read = <G extends Fields>(resource: Resource<G>) =>
    readerOf(storeOf(resource as unknown as Resource) as unknown as ResourceStore<G>, resource, caller);
  return async (next, stored) => {
    const errors = await check({
      record: next as WriteCheckInput<F>['record'],
      stored: stored as RecordOf<F> | null,
      write,
      caller,
      read,
    });
    const problems = Object.entries(errors ?? {}).map(([field, message]) => ({ field, message }));
    if (problems.length > 0) throw new WriteRefusedError(problems);
  };
}
