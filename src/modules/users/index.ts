import { PasswordHasher } from '../../auth/passwords';
import { RefreshSessions } from '../../auth/refresh-sessions';
import { refreshTokenStore, userStore } from '../../auth/stores/definitions';
import { defineModule } from '../../services';
import { selectUserStore } from '../auth/user-store';
import { userRoutes } from './routes';

/**
 * The users module, mounted at /api/users: `GET /me` for any signed-in caller (outside /api/auth, so a page
 * load spends nothing of the auth rate limit), and with USER_STORE=database the admin routes: list, read,
 * change the role of, and delete users. It shares the auth module's stores.
 */
export const usersModule = defineModule([userStore, refreshTokenStore], (services) => {
  const { config, database, tokens } = services;
  return {
    name: 'users',
    routes: userRoutes({
      users: selectUserStore(services, new PasswordHasher()),
      directory: config.userStore === 'database' ? database.store(userStore) : undefined,
      sessions: new RefreshSessions(tokens, database.store(refreshTokenStore), config.refreshRotation),
      roles: config.roles,
    }),
  };
});
