import { Type } from '@sinclair/typebox';
import type { AccountSessions } from '../../auth/account-sessions';
import { hasPassword } from '../../auth/passwords';
import type { IdentityStore } from '../../auth/stores/identity-store';
import type { PasskeyStore } from '../../auth/stores/passkey-store';
import type { MfaStore } from '../../auth/stores/mfa-store';
import { LAST_ADMIN, USERS_ORDER, type UserDirectory, type UserStore } from '../../auth/stores/user-store';
import type { FieldError } from '../../http/envelope';
import { LIST_WINDOW_REFUSALS, readListWindow } from '../../http/routing/list-window';
import { withTiebreak } from '../../stores/kit/list-query';
import type { ListSettings } from '../../stores/kit/pagination';
import { conflict, notFound, unprocessable } from '../../http/errors';
import { callerOf } from '../../http/routing/caller';
import { idParams, pageQuery, pageSchema } from '../../http/routing/record-schemas';
import { route, type ModuleDefinition } from '../../http/routing/route';
import { isId } from '../../stores/ids';
import { ADMIN_ROLE } from '../../stores/kit/owner-scope';
import { linkedProvidersSchema, publicUser, publicUserSchema, roleChangeSchema } from './schemas';

export interface UserRouteDeps {
  /** Whoever can log in (demo or database): enough for /me. */
  users: UserStore;
  /** The database's users, for the admin routes; undefined with USER_STORE=demo (no admin routes then). */
  directory: UserDirectory | undefined;
  sessions: AccountSessions;
  /** The users' two-factor credentials, removed with the user (database users only). */
  secondFactors: Pick<MfaStore, 'remove'> | undefined;
  /** Identities at OpenID Connect providers, removed with the user (database users only). */
  identities: Pick<IdentityStore, 'listByUser' | 'removeUser'> | undefined;
  /** Passkeys, removed with the user (database users only). */
  passkeys: Pick<PasskeyStore, 'removeUser'> | undefined;
  /** OIDC_PROVIDERS set: /me lists the caller's linked providers. */
  listLinkedProviders: boolean;
  roles: readonly string[];
  /** LIST_MAX_OFFSET and LIST_COUNT_LIMIT. */
  lists: ListSettings;
}

const ADMIN_ONLY = { roles: [ADMIN_ROLE] };
// 503 (the database unreachable) is derived for every route of a module with stores: not declared here.
const NOT_FOUND = { 404: 'No such user (an unknown or malformed id)' };
const KEEP_ADMIN = { keepRole: ADMIN_ROLE };
const lastAdmin = () => conflict('This is the last administrator: make another user admin first');

export function userRoutes({
  users,
  directory,
  sessions,
  secondFactors,
  identities,
  passkeys,
  listLinkedProviders,
  roles,
  lists,
}: UserRouteDeps): ModuleDefinition['routes'] {
  const userSchema = publicUserSchema(roles);
  const linked = listLinkedProviders ? identities : undefined;
  const me = route({
    method: 'GET',
    path: '/me',
    access: 'authenticated',
    summary:
      'The signed-in caller, as stored now (role included); with OIDC_PROVIDERS, the providers linked to the account',
    responses: { 200: Type.Composite([userSchema, linkedProvidersSchema]) },
    errors: { 404: 'The user no longer exists' },
    // Read from the store, not the token: the role may have changed, and the token carries no email or name.
    handler: async (ctx) => {
      const user = await users.findById(callerOf(ctx).id);
      if (!user) throw notFound('This user no longer exists');
      if (!linked) return publicUser(user);
      const providers = (await linked.listByUser(user.id)).map((identity) => ({
        provider: identity.provider,
        linkedAt: identity.linkedAt.toISOString(),
      }));
      return { ...publicUser(user), hasPassword: hasPassword(user.passwordHash), linkedProviders: providers };
    },
  });
  if (!directory) return [me];

  /** The id from the path, or a 404 for one no user can have (a malformed id finds nothing, like an unknown one). */
  const userId = (id: string) => {
    if (!isId(id)) throw notFound('No such user');
    return id;
  };

  return [
    me,
    route({
      method: 'GET',
      path: '/',
      access: ADMIN_ONLY,
      summary: 'Users, oldest first, a page at a time (by offset, or by cursor at any depth)',
      query: pageQuery,
      responses: { 200: pageSchema(userSchema) },
      errors: { 422: LIST_WINDOW_REFUSALS },
      handler: async (ctx) => {
        const errors: FieldError[] = [];
        const window = readListWindow(
          ctx.query,
          lists,
          withTiebreak(USERS_ORDER),
          (field) => (field === 'createdAt' ? 'datetime' : 'string'),
          errors,
        );
        if (errors.length > 0) throw unprocessable(errors);
        const page = await directory.list(window);
        return { ...page, items: page.items.map(publicUser) };
      },
    }),
    route({
      method: 'GET',
      path: '/:id',
      access: ADMIN_ONLY,
      summary: 'One user',
      params: idParams,
      responses: { 200: userSchema },
      errors: NOT_FOUND,
      handler: async (ctx) => {
        const user = await users.findById(userId(ctx.params.id));
        if (!user) throw notFound('No such user');
        return publicUser(user);
      },
    }),
    route({
      method: 'PATCH',
      path: '/:id',
      access: ADMIN_ONLY,
      summary: "Change a user's role (one of ROLES); their access tokens already out stop working",
      params: idParams,
      body: roleChangeSchema(roles),
      responses: { 200: userSchema },
      errors: { ...NOT_FOUND, 409: 'The user is the last administrator' },
      // Their tokens carry the old session version: the user refreshes and gets one for the new role.
      handler: async (ctx) => {
        const id = userId(ctx.params.id);
        const user = await directory.updateRole(id, ctx.request.body.role, KEEP_ADMIN);
        if (user === LAST_ADMIN) throw lastAdmin();
        if (!user) throw notFound('No such user');
        sessions.forget(id);
        return publicUser(user);
      },
    }),
    route({
      method: 'DELETE',
      path: '/:id',
      access: ADMIN_ONLY,
      summary:
        'Delete a user, revoke their refresh tokens, remove their two-factor credential and their linked provider identities',
      params: idParams,
      responses: { 204: null },
      errors: { ...NOT_FOUND, 409: 'The user is the last administrator' },
      handler: async (ctx) => {
        const id = userId(ctx.params.id);
        const deleted = await directory.delete(id, KEEP_ADMIN);
        if (deleted === LAST_ADMIN) throw lastAdmin();
        if (!deleted) throw notFound('No such user');
        await sessions.endAll(id); // no refresh token outlives its user; their access tokens fail the guards
        await secondFactors?.remove(id); // nor does their authenticator secret
        await identities?.removeUser(id); // nor a link from a provider's identity (a new sign-in there starts afresh)
        await passkeys?.removeUser(id); // nor a passkey
        return undefined; // 204
      },
    }),
  ];
}
