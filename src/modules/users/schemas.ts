import type { UserRecord } from '../../auth/stores/user-store';
import type { JsonSchema } from '../../http/routing/route';

/** What the users routes show of a user: never the password hash. */
export interface PublicUser {
  id: string;
  email: string;
  name: string | null;
  role: string;
}

export function publicUser(user: UserRecord): PublicUser {
  return { id: user.id, email: user.email, name: user.name, role: user.role };
}

export interface RoleChangeBody {
  role: string;
}

/** PATCH /api/users/:id: the role, one of ROLES. */
export function roleChangeSchema(roles: readonly string[]): JsonSchema {
  return {
    type: 'object',
    required: ['role'],
    properties: { role: { type: 'string', enum: [...roles] } },
    additionalProperties: false,
  };
}
