import { checkDemoPassword, DemoUserStore } from '../../auth/demo-user-store';
import type { PasswordHasher } from '../../auth/passwords';
import type { Services } from '../../services';
import { userStore } from '../../auth/stores/definitions';
import type { UserStore } from '../../auth/stores/user-store';

const demoStores = new WeakMap<object, DemoUserStore>();

/**
 * USER_STORE picks who can log in: the built-in demo user, or the users table/collection of the database.
 * One demo store per service (the auth and users modules share it): building one hashes its password.
 */
export function selectUserStore(
  { config, database }: Pick<Services, 'config' | 'database'>,
  hasher: PasswordHasher,
): UserStore {
  if (config.userStore === 'database') return database.store(userStore);
  let demo = demoStores.get(database);
  if (!demo) {
    checkDemoPassword(config);
    demoStores.set(database, (demo = new DemoUserStore(config.demoUser, hasher)));
  }
  return demo;
}
