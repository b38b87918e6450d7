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
    password: { type: 'string', minLength: 1, maxLength: 128 },
  },
};

export interface RegisterBody {
  name: string;
  email: string;
  password: string;
}

/** Registration asks for at least 8 characters (OWASP ASVS 2.1.1); 128 caps the hashing input. */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

export const registerSchema: JsonSchema = {
  type: 'object',
  required: ['name', 'email', 'password'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' },
    email: emailSchema,
    password: { type: 'string', minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH },
  },
};
