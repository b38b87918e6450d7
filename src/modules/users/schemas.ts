import { Type } from '@sinclair/typebox';
import type { UserRecord } from '../../auth/stores/user-store';

/** A role: one of the configured ROLES, so a client's generated type is that union, not any string. */
export function roleSchema(roles: readonly string[]) {
  return Type.Union(roles.map((role) => Type.Literal(role)));
}

/** What the users routes show of a user: never the password hash. */
export function publicUserSchema(roles: readonly string[]) {
  return Type.Object({
    id: Type.String(),
    email: Type.String({ format: 'email' }),
    name: Type.Union([Type.String(), Type.Null()]),
    role: roleSchema(roles),
    emailVerified: Type.Boolean({ description: 'The address is proven to belong to the user (EMAIL_VERIFICATION)' }),
  });
}

export function publicUser(user: UserRecord) {
  return { id: user.id, email: user.email, name: user.name, role: user.role, emailVerified: user.emailVerified };
}

/** PATCH /api/users/:id: the role, one of ROLES. */
export function roleChangeSchema(roles: readonly string[]) {
  return Type.Object({ role: roleSchema(roles) }, { additionalProperties: false });
}

/**
 * GET /me: how the caller can sign in besides (or instead of) a password. Present only with OIDC_PROVIDERS, so
 * optional in the one document every setting shares.
 */
export const linkedProvidersSchema = Type.Object({
  hasPassword: Type.Optional(
    Type.Boolean({
      description:
        'With OIDC_PROVIDERS: false for an account made by a provider sign-in until a password is set (by reset)',
    }),
  ),
  linkedProviders: Type.Optional(
    Type.Array(
      Type.Object({
        provider: Type.String({ description: 'The name in OIDC_PROVIDERS' }),
        linkedAt: Type.String({ format: 'date-time' }),
      }),
      {
        description:
          'With OIDC_PROVIDERS: identities at OpenID Connect providers that sign in to this account, oldest first',
      },
    ),
  ),
});
