// Errors the stores raise, in the domain's terms; the HTTP layer maps them to statuses
// (StoreUnavailableError → 503, DuplicateKeyError → 409 where a handler lets it through).

/** The database cannot be reached or did not answer in time. Transient: retrying later may succeed. */
export class StoreUnavailableError extends Error {
  constructor(message = 'The database is unavailable', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** A create violated a unique key (a refresh token digest or a user email that already exists). */
export class DuplicateKeyError extends Error {
  constructor(message = 'The record already exists', options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DuplicateKeyError';
  }
}
