import { DemoUserStore } from '../../auth/demo-user-store';
import type { PasswordHasher } from '../../auth/passwords';
import type { Services } from '../../services';
import type { UserStore } from '../../stores/types';

/** USER_STORE picks who can log in: the built-in demo user, or the users table/collection of the database. */
export function selectUserStore({ config, database }: Pick<Services, 'config' | 'database'>, hasher: PasswordHasher): UserStore {
  return config.userStore === 'database' ? database.users : new DemoUserStore(config.demoUser, hasher);
}
