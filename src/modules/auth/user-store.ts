import { DemoUserStore } from '../../auth/demo-user-store';
import type { PasswordHasher } from '../../auth/passwords';
import type { Services } from '../../services';
import { userStore } from '../../auth/stores/definitions';
import type { UserStore } from '../../auth/stores/user-store';

/** USER_STORE picks who can log in: the built-in demo user, or the users table/collection of the database. */
export function selectUserStore({ config, database }: Pick<Services, 'config' | 'database'>, hasher: PasswordHasher): UserStore {
  return config.userStore === 'database' ? database.store(userStore) : new DemoUserStore(config.demoUser, hasher);
}
