import { FailEnvelopeSchema, FieldErrorSchema, SuccessEnvelopeSchema, ValidationFailEnvelopeSchema } from '../envelope';
import type { HeaderDoc, JsonSchema } from '../routing/route';

// What every operation of the document refers to instead of repeating it: the envelope schemas (from
// envelope.ts, the code that builds the bodies), the headers the framework sends, the bearer scheme.

export const SCHEMA_REF = {
  success: '#/components/schemas/SuccessEnvelope',
  fail: '#/components/schemas/FailEnvelope',
  validationFail: '#/components/schemas/ValidationFailEnvelope',
} as const;

/** Headers sent by the framework or its rate limit, described once; operations refer to them by name. */
export const FRAMEWORK_HEADERS: Record<string, HeaderDoc> = {
  // Set by the outermost middleware, so every answer Koa gives carries it.
  'X-Request-Id': {
    description: "The request's id: the caller's X-Request-Id when short and plain, else a new UUID",
    schema: { type: 'string' },
    required: true,
  },
  'WWW-Authenticate': { description: 'The Bearer challenge (RFC 6750)', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Limit': { description: 'Requests allowed per window', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': {
    description: 'Requests left in the current window',
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer', minimum: 0 } },
};

/** A plain-JSON copy: TypeBox's symbol keys (and anything else that is not JSON) stay out of the document. */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export function baseComponents(): {
  schemas: Record<string, JsonSchema>;
  headers: Record<string, JsonSchema>;
  securitySchemes: Record<string, JsonSchema>;
} {
  // Two fail bodies, split by status: a 422 lists the refused fields (required, at least one), every other
  // failure has no `errors` at all, so a generated client's types narrow by status. The field error lives once.
  const validationFail = plain(ValidationFailEnvelopeSchema) as JsonSchema & { properties: { errors: JsonSchema } };
  validationFail.properties.errors = {
    ...validationFail.properties.errors,
    items: { $ref: '#/components/schemas/FieldError' },
  };
  return {
    schemas: {
      SuccessEnvelope: plain(SuccessEnvelopeSchema),
      FailEnvelope: plain(FailEnvelopeSchema),
      ValidationFailEnvelope: validationFail,
      FieldError: plain(FieldErrorSchema),
    },
    headers: Object.fromEntries(Object.entries(FRAMEWORK_HEADERS).map(([name, header]) => [name, plain(header)])),
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'A short-lived access token (JWT, HS256) in `Authorization: Bearer <token>`, issued and verified following RFC8725 ' +
          '(JSON Web Token Best Current Practices): the algorithm pinned, issuer, audience, token type and lifetime checked',
      },
    },
  };
}
