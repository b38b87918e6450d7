import { createUsers } from './0001-create-users';
import { createRefreshTokens } from './0002-create-refresh-tokens';
import type { SqlMigration } from './migration';

/**
 * Every migration, in order. Listed in code rather than found by a file glob, so the same list works from
 * TypeScript sources (tests, tsx) and from the compiled dist/. Add a new file and append it here.
 */
export const migrations: readonly SqlMigration[] = [createUsers, createRefreshTokens];
