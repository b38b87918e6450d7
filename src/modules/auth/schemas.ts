import { chosenPasswordSchema, PASSWORD_MAX_LENGTH } from '../../auth/password-policy';
import type { JsonSchema } from '../../http/routing/route';

// Request bodies of the auth routes. Other properties are ignored (never read), not rejected.
// Types are strict: an operator object such as {"$gt": ""} as email or password is a 422, never a query.

/** An email address as every auth route (and the user:create CLI) accepts it. */
export const emailSchema = { type: 'string', format: 'email', maxLength: 254 } as const;

export interface LoginBody {
  email: string;
  password: string;
}

export const loginSchema: JsonSchema = {
  type: 'object',
  required: ['email', 'password'],
  properties: {
    email: emailSchema,
    password: { type: 'string', minLength: 1, maxLength: PASSWORD_MAX_LENGTH },
  },
};

export interface RegisterBody {
  name: string;
  email: string;
  password: string;
}

/** Registration: the password's length comes from PASSWORD_MIN_LENGTH; the rest of the policy runs in the handler. */
export function registerSchema(passwordMinLength: number): JsonSchema {
  return {
    type: 'object',
    required: ['name', 'email', 'password'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' },
      email: emailSchema,
      password: chosenPasswordSchema(passwordMinLength),
    },
  };
}
