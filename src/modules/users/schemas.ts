import { Type } from '@sinclair/typebox';
import type { UserRecord } from '../../auth/stores/user-store';

/** What the users routes show of a user: never the password hash. */
export const publicUserSchema = Type.Object({
  id: Type.String(),
  email: Type.String({ format: 'email' }),
  name: Type.Union([Type.String(), Type.Null()]),
  role: Type.String(),
});

export function publicUser(user: UserRecord) {
  return { id: user.id, email: user.email, name: user.name, role: user.role };
}

/** PATCH /api/users/:id: the role, one of ROLES. */
export function roleChangeSchema(roles: readonly string[]) {
  return Type.Object({ role: Type.Union(roles.map((role) => Type.Literal(role))) }, { additionalProperties: false });
}
