import { defineStore } from '../../stores/kit/definition';
import type { AccountTokenStore } from './account-token-store';
import { createUsers } from './migrations/0001-create-users';
import { createRefreshTokens } from './migrations/0002-create-refresh-tokens';
import { addRefreshTokenFamilies } from './migrations/0003-refresh-token-families';
import { addUserSessionVersion } from './migrations/0004-user-session-version';
import { addUsersCreatedAtIndex } from './migrations/0005-users-created-at-index';
import { createAccountTokens } from './migrations/0007-create-account-tokens';
import { addUsersEmailVerified } from './migrations/0008-users-email-verified';
import { makeUsersEmailBinary } from './migrations/0009-users-email-binary';
import { createMfa } from './migrations/0010-create-mfa';
import { createLinkedIdentities } from './migrations/0011-create-linked-identities';
import { createPasskeys } from './migrations/0012-create-passkeys';
import { MongoPasskeyStore } from './mongo-passkey-store';
import { MongoSignInMethodStore } from './mongo-sign-in-method-store';
import type { SignInMethodStore } from './sign-in-method-store';
import type * as SqlSignInMethods from './sql-sign-in-method-store';
import type { PasskeyStore } from './passkey-store';
import type * as SqlPasskeys from './sql-passkey-store';
import type { IdentityStore } from './identity-store';
import { MongoIdentityStore } from './mongo-identity-store';
import type { MfaStore } from './mfa-store';
import { MongoMfaStore } from './mongo-mfa-store';
import { MongoAccountTokenStore } from './mongo-account-token-store';
import { MongoRefreshTokenStore } from './mongo-refresh-token-store';
import { MongoUserStore } from './mongo-user-store';
import type { RefreshTokenStore } from './refresh-token-store';
import type * as SqlAccountTokens from './sql-account-token-store';
import type * as SqlMfa from './sql-mfa-store';
import type * as SqlIdentities from './sql-identity-store';
import type * as SqlRefreshTokens from './sql-refresh-token-store';
import type * as SqlUsers from './sql-user-store';
import type { DatabaseUserStore } from './user-store';

// The auth module's persistence, declared like any module's (src/stores/kit): the service opens them on
// the configured engine. The migration names predate the kit and stay as they are (databases record them).
// The relational implementations are required when built, not imported: they load Sequelize, which a
// service on MongoDB never needs (test/service/loaded-packages.test.ts).
/* eslint-disable @typescript-eslint/no-require-imports */

export const userStore = defineStore<DatabaseUserStore>({
  name: 'users',
  migrations: [createUsers, addUserSessionVersion, addUsersCreatedAtIndex, makeUsersEmailBinary, addUsersEmailVerified],
  relational: (context) => new (require('./sql-user-store') as typeof SqlUsers).SqlUserStore(context),
  mongodb: (context) => new MongoUserStore(context),
});

export const refreshTokenStore = defineStore<RefreshTokenStore>({
  name: 'refresh-tokens',
  migrations: [createRefreshTokens, addRefreshTokenFamilies],
  relational: (context) =>
    new (require('./sql-refresh-token-store') as typeof SqlRefreshTokens).SqlRefreshTokenStore(context),
  mongodb: (context) => new MongoRefreshTokenStore(context),
});

/** Single-use account tokens (password reset by email, docs/accounts.md): the table exists whether or not mail is configured. */
export const accountTokenStore = defineStore<AccountTokenStore>({
  name: 'account-tokens',
  migrations: [createAccountTokens],
  relational: (context) =>
    new (require('./sql-account-token-store') as typeof SqlAccountTokens).SqlAccountTokenStore(context),
  mongodb: (context) => new MongoAccountTokenStore(context),
});

/** Two-factor credentials and recovery codes (docs/accounts.md): the tables exist whether or not MFA is configured. */
export const mfaStore = defineStore<MfaStore>({
  name: 'mfa',
  migrations: [createMfa],
  relational: (context) => new (require('./sql-mfa-store') as typeof SqlMfa).SqlMfaStore(context),
  mongodb: (context) => new MongoMfaStore(context),
});

/** Identities at OpenID Connect providers linked to users (docs/authentication.md): the table exists whether or not OIDC is configured. */
export const identityStore = defineStore<IdentityStore>({
  name: 'linked-identities',
  migrations: [createLinkedIdentities],
  relational: (context) => new (require('./sql-identity-store') as typeof SqlIdentities).SqlIdentityStore(context),
  mongodb: (context) => new MongoIdentityStore(context),
});

/** Passkeys (WebAuthn credentials) of users (docs/authentication.md): the table exists whether or not PASSKEYS is on. */
export const passkeyStore = defineStore<PasskeyStore>({
  name: 'passkeys',
  migrations: [createPasskeys],
  relational: (context) => new (require('./sql-passkey-store') as typeof SqlPasskeys).SqlPasskeyStore(context),
  mongodb: (context) => new MongoPasskeyStore(context),
});

/**
 * The ways in across those tables (a password, passkeys, identities): removing one never leaves a user with
 * none, even with removals racing on several replicas; a user made with a passkey alone gets both at once.
 * No table of its own: it works through the models of the stores it depends on, opened before it.
 */
export const signInMethodStore = defineStore<SignInMethodStore>({
  name: 'sign-in-methods',
  migrations: [],
  dependsOn: [userStore, passkeyStore, identityStore],
  relational: (context) =>
    new (require('./sql-sign-in-method-store') as typeof SqlSignInMethods).SqlSignInMethodStore(context),
  mongodb: (context) => new MongoSignInMethodStore(context),
});
/* eslint-enable @typescript-eslint/no-require-imports */
