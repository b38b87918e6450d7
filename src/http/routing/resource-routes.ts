import { Type } from '@sinclair/typebox';
import type { UserStore } from '../../auth/stores/user-store';
import type { AuthUser } from '../../auth/tokens';
import type { Fields, FieldsOf } from '../../stores/kit/fields';
import { includesOf } from '../../stores/kit/includes';
import { checkInWords, checksOf } from '../../stores/kit/field-checks';
import {
  CATALOGUE_OWNER,
  isCatalogue,
  readScope,
  writeScope,
  type ResourceAccess,
} from '../../stores/kit/access-policy';
import { routeAccess } from './access';
import { ADMIN_ROLE, type OwnerScope } from '../../stores/kit/owner-scope';
import type { ListSettings } from '../../stores/kit/pagination';
import { referrersOf, type Resource } from '../../stores/kit/resource';
import type { ResourceStore } from '../../stores/kit/resource-store';
import { notFound, unprocessable } from '../errors';
import { callerOf } from './caller';
import { actionRoutes } from './resource-actions';
import { readListQuery } from './list-query-params';
import { LIST_WINDOW_REFUSALS } from './list-window';
import {
  includedRecordSchema,
  readInclude,
  withIncluded,
  withIncludedRecords,
  withIncludeQuery,
  type StoreOf,
} from './resource-include';
import { ownerIdProperty, ownerOfNew } from './record-owner';
import { idParams, pageSchema } from './record-schemas';
import { createBodySchema, listQuerySchema, recordSchema, updateBodySchema } from './resource-schemas';
import { route, type AnyRoute, type ErrorResponses, type RequestState } from './route';
import { writeJudge, type WriteCheck } from './write-check';
import { inSearchTurn, type SearchTurns } from './search-turns';

// The CRUD of a resource, written once for every module the generator makes: create, list (filters, sort,
// offset or cursor), read, change and delete, each record visible to its owner only (all of them to role
// admin). The resource's rules answer the same everywhere: a unique key clash 409, a reference to no record
// of the caller's 422, a delete that a 'restrict' reference forbids 409 (src/http/middleware/error-handler.ts).

const NOT_FOUND = 'No such record, or not yours';

/** Someone else's record, an unknown id and a malformed one all answer the same 404. */
function missing(): never {
  throw notFound(NOT_FOUND);
}

/** Datetime fields arrive as ISO 8601 strings and are kept as Dates; the rest as sent. */
function toFields(resource: Resource, body: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body)) {
    if (!(name in resource.fields)) continue;
    fields[name] = resource.fields[name]!.kind === 'datetime' && typeof value === 'string' ? new Date(value) : value;
  }
  return fields;
}

/**
 * Whose records a list reads: the resource's read scope for the caller, or (`?ownerId=`) one user's, through the
 * owner's indexes: admins only where each user reads their own records, any reader where all read all.
 */
function listScope(access: ResourceAccess, caller: AuthUser | undefined, query: Record<string, unknown>): OwnerScope {
  if (query.ownerId === undefined) return readScope(access, caller);
  if (access.read === 'owner' && caller?.role !== ADMIN_ROLE)
    throw unprocessable([
      { field: 'query.ownerId', message: "is for admins only: a list holds the caller's own records" },
    ]);
  return { ownerId: String(query.ownerId) };
}

/** The signed-in caller, if any (a public read has none). */
const callerIf = (ctx: { state: RequestState }) => ctx.state.user;

/** What a resource's routes reach beyond its store: the list settings, the other resources' stores (includes), the users (an admin's ownerId). */
export interface ResourceRouteServices {
  lists: ListSettings;
  storeOf: StoreOf;
  users: Pick<UserStore, 'findById'>;
  /** Turns for searches across the process (search-turns.ts): a list with `?q=` takes one. */
  searchTurns?: SearchTurns;
}

/** Whether a resource's store is opened with this database (a join module mounted). */
function opened(storeOf: StoreOf) {
  return (resource: Resource) => {
    try {
      storeOf(resource);
      return true;
    } catch {
      return false;
    }
  };
}

/** What each route says of whose records it works on, from the policy. */
function words(access: ResourceAccess) {
  if (isCatalogue(access))
    return {
      records: 'the records (a catalogue: nobody owns them)',
      create: `Create a record (${access.write === 'admin' ? 'admins' : `role ${access.write.slice(5)} and admins`} only)`,
    };
  if (access.read === 'owner')
    return {
      records: "the caller's records (an admin's: everyone's)",
      create: 'Create a record owned by the caller (an admin may name its owner)',
    };
  return {
    records: `every user's records (${access.read === 'public' ? 'no token needed' : 'any signed-in user'})`,
    create: 'Create a record owned by the caller (an admin may name its owner)',
  };
}

/** The five routes under /api/<resource.name>, and one per declared action; `checkWrite`, the module's own check of each write. */
export function resourceRoutes<F extends Fields>(
  resource: Resource<F>,
  store: ResourceStore<F>,
  { lists, storeOf, users, searchTurns }: ResourceRouteServices,
  checkWrite?: WriteCheck<F>,
): AnyRoute[] {
  const plain = resource as unknown as Resource;
  const { access } = plain;
  const allowed = routeAccess(access);
  const said = words(access);
  const record = recordSchema(plain);
  const includes = includesOf(plain, opened(storeOf));
  const createBody = createBodySchema(plain);
  const clash: ErrorResponses =
    resource.unique.length > 0
      ? {
          409: `A record with the same ${resource.unique.map((key) => key.join(' and ')).join(', or ')} exists already`,
        }
      : {};
  const referenced: ErrorResponses = referrersOf(plain).some((referrer) => referrer.onDelete === 'restrict')
    ? {
        409: `Records of ${[...new Set(referrersOf(plain).map((referrer) => referrer.resource.name))].join(', ')} point at it`,
      }
    : {};
  // The rules across fields, stated where a client writes (field-checks.ts): a record breaking one is a 422 naming the field.
  const checks = checksOf(plain);
  const rules =
    checks.length === 0
      ? undefined
      : `Rules across fields (an empty side leaves nothing to compare): ${checks.map((check) => `${check.text} (${check.left} ${checkInWords(check, plain.fields)})`).join('; ')}.`;
  const refusals = checks.length === 0 ? '' : ', or a rule across fields is broken';
  const body = (ctx: { request: { body: unknown } }) => toFields(plain, ctx.request.body as Record<string, unknown>);
  // Included records are read in their own resource's read scope for this caller: a booking shows the room it
  // points at (a catalogue's), a note its tags (the caller's).
  const scopes = (caller: AuthUser | undefined) => (target: Resource) => readScope(target.access, caller);
  const judge = (ctx: { state: RequestState }, write: string) => writeJudge(checkWrite, write, callerOf(ctx), storeOf);
  const ownerOf = async (ctx: { state: RequestState; request: { body: unknown } }) =>
    isCatalogue(access)
      ? CATALOGUE_OWNER
      : ownerOfNew(callerOf(ctx), ctx.request.body as Record<string, unknown>, users);
  return [
    route({
      method: 'POST',
      path: '/',
      access: allowed.write,
      summary: said.create,
      description: rules,
      body: Type.Object(
        { ...createBody.properties, ...(isCatalogue(access) ? {} : ownerIdProperty) },
        { additionalProperties: false },
      ),
      responses: { 201: record },
      errors: {
        ...clash,
        422: `${isCatalogue(access) ? 'A reference is not a record the catalogue may point at' : "An admin's `ownerId` names no user, or a reference is not that user's record"}${refusals}`,
      },
      location: (created) => `/api/${resource.name}/${(created as { id: string }).id}`,
      handler: async (ctx) =>
        store.create(await ownerOf(ctx), body(ctx) as FieldsOf<F>, { judge: judge(ctx, 'create') }),
    }),
    route({
      method: 'GET',
      path: '/',
      access: allowed.read,
      summary: `${said.records[0]!.toUpperCase()}${said.records.slice(1)}, filtered and sorted, a page at a time`,
      query: withIncludeQuery(includes, listQuerySchema(plain)),
      responses: { 200: pageSchema(includedRecordSchema(plain, includes)) },
      // The window's rules need the settings or each other, so they are checked after the schema passed each parameter.
      errors: { 422: LIST_WINDOW_REFUSALS },
      handler: async (ctx) => {
        const query = ctx.query as Record<string, unknown>;
        const include = readInclude(includes, query.include);
        const caller = callerIf(ctx);
        const listed = readListQuery(plain, query, lists);
        const read = () => store.list(listScope(access, caller, query), listed);
        // A search takes a turn shared by all callers, in a round between them; a public read's caller is its address.
        const page =
          listed.search === undefined
            ? await read()
            : await inSearchTurn(searchTurns, caller?.id ?? `ip:${ctx.ip}`, read);
        return withIncluded(page, include, scopes(caller), storeOf);
      },
    }),
    route({
      method: 'GET',
      path: '/:id',
      access: allowed.read,
      summary: 'One record',
      params: idParams,
      // Declared even without includes: a parameter the route does not know is a 422, as on the list.
      query: withIncludeQuery(includes, Type.Object({}, { additionalProperties: false })),
      responses: { 200: includedRecordSchema(plain, includes) },
      errors: { 404: NOT_FOUND },
      handler: async (ctx) => {
        const include = readInclude(includes, (ctx.query as Record<string, unknown>).include);
        const caller = callerIf(ctx);
        const found = (await store.findById(ctx.params.id, readScope(access, caller))) ?? missing();
        return (await withIncludedRecords([found], include, scopes(caller), storeOf))[0]!;
      },
    }),
    route({
      method: 'PATCH',
      path: '/:id',
      access: allowed.write,
      summary: 'Change some fields of a record',
      description: rules && `${rules} A change of one side is judged against the other as stored.`,
      params: idParams,
      body: updateBodySchema(plain),
      responses: { 200: record },
      errors: { 404: NOT_FOUND, ...clash },
      handler: async (ctx) =>
        (await store.update(ctx.params.id, writeScope(access, callerOf(ctx)), body(ctx) as never, {
          judge: judge(ctx, 'update'),
        })) ?? missing(),
    }),
    route({
      method: 'DELETE',
      path: '/:id',
      access: allowed.write,
      summary: 'Delete a record',
      params: idParams,
      responses: { 204: null },
      errors: { 404: NOT_FOUND, ...referenced },
      handler: async (ctx) => {
        if (!(await store.delete(ctx.params.id, writeScope(access, callerOf(ctx))))) missing();
      },
    }),
    ...actionRoutes(resource, store, record, { notFound: NOT_FOUND, judge }),
  ];
}
