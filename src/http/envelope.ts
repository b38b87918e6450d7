import { Type, type Static } from '@sinclair/typebox';

// The one response envelope. Every JSON body the service sends is built here, and the API document's
// envelope schemas (components.schemas) are these, so the two cannot drift apart.

export const FieldErrorSchema = Type.Object(
  {
    field: Type.String({ description: "Path of the offending value: `email`, `address.city`, `query.limit`, `params.id`; for a missing property, its name" }),
    message: Type.String(),
  },
  { additionalProperties: false },
);

/** A 4xx/5xx answer. `errors` only on a 422. */
export const FailEnvelopeSchema = Type.Object(
  {
    status: Type.Literal('fail'),
    message: Type.String(),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
  },
  { additionalProperties: false },
);

/** A successful answer with a body; each operation states what `data` holds. */
export const SuccessEnvelopeSchema = Type.Object(
  {
    status: Type.Literal('success'),
    data: Type.Unknown(),
  },
  { additionalProperties: false },
);

export type FieldError = Static<typeof FieldErrorSchema>;
export type FailEnvelope = Static<typeof FailEnvelopeSchema>;

export interface SuccessEnvelope<T> {
  status: 'success';
  data: T;
}

export function success<T>(data: T): SuccessEnvelope<T> {
  return { status: 'success', data };
}

export function fail(message: string, errors?: FieldError[]): FailEnvelope {
  return errors ? { status: 'fail', message, errors } : { status: 'fail', message };
}
