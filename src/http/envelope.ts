// The one response envelope. Every JSON body the service sends is built here.

export interface FieldError {
  /** Path of the offending property (`address.city`); for a missing property, its name. */
  field: string;
  message: string;
}

export interface SuccessEnvelope<T> {
  status: 'success';
  data: T;
}

export interface FailEnvelope {
  status: 'fail';
  message: string;
  errors?: FieldError[];
}

export function success<T>(data: T): SuccessEnvelope<T> {
  return { status: 'success', data };
}

export function fail(message: string, errors?: FieldError[]): FailEnvelope {
  return errors ? { status: 'fail', message, errors } : { status: 'fail', message };
}
