import { AccountSessions } from '../../auth/account-sessions';
import { RefreshSessions } from '../../auth/refresh-sessions';
import { identityStore, mfaStore, passkeyStore, refreshTokenStore, userStore } from '../../auth/stores/definitions';
import { defineModule } from '../../services';
import { userRoutes } from './routes';

/**
 * The users module, mounted at /api/users: `GET /me` for any signed-in caller (outside /api/auth, so a page
 * load spends nothing of the auth rate limit), and with USER_STORE=database the admin routes: list, read,
 * change the role of, and delete users. It shares the auth module's stores.
 */
export const usersModule = defineModule(
  [userStore, refreshTokenStore, mfaStore, identityStore, passkeyStore],
  (services) => {
    const { config, database, tokens, users, callers } = services;
    const refresh = new RefreshSessions(tokens, database.store(refreshTokenStore), config.refreshRotation);
    return {
      name: 'users',
      description:
        "The signed-in user as stored now, and (with USER_STORE=database) the administrators' user management",
      routes: userRoutes({
        users,
        directory: config.userStore === 'database' ? database.store(userStore) : undefined,
        secondFactors: config.userStore === 'database' ? database.store(mfaStore) : undefined,
        identities: config.userStore === 'database' ? database.store(identityStore) : undefined,
        passkeys: config.userStore === 'database' ? database.store(passkeyStore) : undefined,
        listLinkedProviders: config.oidc !== undefined,
        sessions: new AccountSessions(users, refresh, callers),
        roles: config.roles,
        lists: config.lists,
      }),
    };
  },
);
