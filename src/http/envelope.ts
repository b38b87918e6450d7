import { Type, type Static } from '@sinclair/typebox';

// The one response envelope. Every JSON body the service sends is built here, and the API document's
// envelope schemas (components.schemas) are these, so the two cannot drift apart.

export const FieldErrorSchema = Type.Object(
  {
    field: Type.String({
      description:
        'Path of the offending value: `email`, `address.city`, `query.limit`, `params.id`; for a missing property, its name',
    }),
    message: Type.String(),
  },
  { additionalProperties: false },
);

/** A 4xx/5xx answer other than a 422: a message, nothing else. */
export const FailEnvelopeSchema = Type.Object(
  {
    status: Type.Literal('fail'),
    message: Type.String(),
  },
  { additionalProperties: false },
);

/**
 * A 422: the message and every field that was refused, at least one. A type of its own, so a client generated
 * from the document reads `errors` after checking the status, with nothing to guard.
 */
export const ValidationFailEnvelopeSchema = Type.Object(
  {
    status: Type.Literal('fail'),
    message: Type.String(),
    errors: Type.Array(FieldErrorSchema, { minItems: 1 }),
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
export type ValidationFailEnvelope = Static<typeof ValidationFailEnvelopeSchema>;

export interface SuccessEnvelope<T> {
  status: 'success';
  data: T;
}

export function success<T>(data: T): SuccessEnvelope<T> {
  return { status: 'success', data };
}

/** The fail body: with field errors (a 422) when there are any, else the message alone. */
export function fail(message: string, errors?: FieldError[]): FailEnvelope | ValidationFailEnvelope {
  return errors && errors.length > 0 ? { status: 'fail', message, errors } : { status: 'fail', message };
}
