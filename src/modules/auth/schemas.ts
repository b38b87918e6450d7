import { Type, type Static } from '@sinclair/typebox';
import { RECOVERY_CODE_PATTERN } from '../../auth/mfa/recovery-codes';
import { chosenPasswordSchema, PASSWORD_INPUT } from '../../auth/password-policy';

// Request bodies and answers of the auth routes, as TypeBox schemas: the JSON Schema that validates a body
// (and documents it in /openapi.json) and the type its handler sees come from one declaration.
// Other body properties are ignored (never read), not rejected. Types are strict: an operator object such
// as {"$gt": ""} as email or password is a 422, never a query.

/** The 503 every route that reads or writes the database may answer. */
export const STORE_UNAVAILABLE = 'The database is unreachable';

/** An email address as every auth route (and the user:create CLI) accepts it. */
export const emailSchema = Type.String({ format: 'email', maxLength: 254 });

export const loginSchema = Type.Object({
  email: emailSchema,
  password: Type.Unsafe<string>(PASSWORD_INPUT),
});
export type LoginBody = Static<typeof loginSchema>;

/** Registration: the password's length comes from PASSWORD_MIN_LENGTH; the rest of the policy runs in the handler. */
export function registerSchema(passwordMinLength: number) {
  return Type.Object({
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
    email: emailSchema,
    password: Type.Unsafe<string>(chosenPasswordSchema(passwordMinLength)),
  });
}
export type RegisterBody = Static<ReturnType<typeof registerSchema>>;

/** What login and refresh answer: a new access token. The refresh token travels only in the cookie. */
export const accessTokenSchema = Type.Object({
  accessToken: Type.String({ description: 'JWT (HS256) for `Authorization: Bearer …`' }),
  tokenType: Type.Literal('Bearer'),
  expiresIn: Type.Integer({ description: 'Seconds until the access token expires' }),
});

/** What registration answers: the new user, never the password hash. */
export const registeredUserSchema = Type.Object({
  id: Type.String(),
  email: Type.String({ format: 'email' }),
  role: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
});

/** Password change: the new password's length from PASSWORD_MIN_LENGTH; the rest of the policy runs in the handler. */
export function passwordChangeSchema(passwordMinLength: number) {
  return Type.Object({
    currentPassword: Type.Optional(
      Type.Unsafe<string>({
        ...PASSWORD_INPUT,
        description:
          'The current password (an account without one sets its first with a recent proof: POST /api/auth/reauth)',
      }),
    ),
    newPassword: Type.Unsafe<string>(chosenPasswordSchema(passwordMinLength)),
  });
}

/** Login of a user with two-factor login on, after the right password: the second step's token, nothing else. */
export const mfaChallengeSchema = Type.Object({
  mfaRequired: Type.Literal(true),
  mfaToken: Type.String({
    description: 'For POST /api/auth/mfa/verify only; works for MFA_TOKEN_TTL (5 minutes by default)',
  }),
});

/** A code from the authenticator app: six digits (RFC 6238 as the apps do it). */
export const totpCodeSchema = Type.String({
  pattern: '^[0-9]{6}$',
  examples: ['492039'],
  description: 'Six digits from the authenticator app',
});

export const recoveryCodeSchema = Type.String({
  pattern: RECOVERY_CODE_PATTERN,
  examples: ['k7wq-m3xd-p9ta-e2hn'],
  description: 'One of the recovery codes shown at confirmation (hyphens optional)',
});

/**
 * A proof of the owner given in the request itself, before a change to the ways in: it counts where it would
 * sign the account in (the password; with two-factor login on, the password and a code); otherwise the access
 * token's recent proof decides (POST /api/auth/reauth).
 */
export const ownerProofFields = {
  password: Type.Optional(Type.Unsafe<string>({ ...PASSWORD_INPUT, description: "The caller's current password" })),
  code: Type.Optional(totpCodeSchema),
  recoveryCode: Type.Optional(recoveryCodeSchema),
};
export const ownerProofSchema = Type.Object(ownerProofFields);
