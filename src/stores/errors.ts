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

/** A write would give two records of one owner the same values for a unique key of their resource. */
export class UniqueKeyError extends Error {
  constructor(
    /** The fields of the key, as declared. */
    readonly fields: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(`Another record has the same ${fields.join(' and ')}`, options);
    this.name = 'UniqueKeyError';
  }
}

/** A reference field names a record that does not exist, or belongs to someone else. */
export class MissingReferenceError extends Error {
  constructor(
    readonly field: string,
    options?: { cause?: unknown },
  ) {
    super(`No such record, or not yours`, options);
    this.name = 'MissingReferenceError';
  }
}

/** A delete refused: records of another resource point at this one and their rule is 'restrict'. */
export class ReferencedRecordError extends Error {
  constructor(
    /** The resource whose records point at it, when known. */
    readonly by?: string,
    options?: { cause?: unknown },
  ) {
    super(`Other records${by ? ` (${by})` : ''} point at this one: delete or change them first`, options);
    this.name = 'ReferencedRecordError';
  }
}

/** A relational foreign key refused a statement (the driver's code told it); the store says which case it was. */
export class ForeignKeyViolationError extends Error {
  constructor(options?: { cause?: unknown }) {
    super('A foreign key refused the change', options);
    this.name = 'ForeignKeyViolationError';
  }
}

/** The database's schema lacks what the stores need: start-up stops with each problem named. */
export class SchemaDriftError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the database schema does not match the declarations:\n  - ${problems.join('\n  - ')}`);
    this.name = 'SchemaDriftError';
  }
}

/** A CHECK constraint or a collection validator refused a write (the driver's code told it); `constraint` names it where the engine did. */
export class CheckViolationError extends Error {
  constructor(
    readonly constraint?: string,
    options?: { cause?: unknown },
  ) {
    super(`The database refused a value${constraint ? ` (${constraint})` : ''}`, options);
    this.name = 'CheckViolationError';
  }
}

/** A write holds a value a field's rules refuse (the database held the rule: the request did not pass the routes' validation). */
export class RuleViolationError extends Error {
  constructor(
    readonly field: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RuleViolationError';
  }
}

/** A field and what is wrong with its value. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** A write a module's own check refused (its `checkWrite` hook): each field it names, with why (422). */
export class WriteRefusedError extends Error {
  constructor(readonly problems: readonly FieldProblem[]) {
    super(problems.map((problem) => `${problem.field} ${problem.message}`).join('; '));
    this.name = 'WriteRefusedError';
  }
}

/** A record changed by other writes each time this one was about to land on it (409: try again). */
export class WriteContendedError extends Error {
  constructor() {
    super('The record kept changing while this change was judged: try again');
    this.name = 'WriteContendedError';
  }
}

/** The command that runs a destructive migration (`up`) or revert (`down`) deliberately, after a backup. */
export const allowDestructiveCommand = (direction: 'up' | 'down') =>
  `npm run db:migrate -- ${direction} --allow-destructive (from a build: node dist/cli/db-migrate.js ${direction} --allow-destructive)`;

/**
 * Migrations would destroy data (a table or collection dropped, a field's values removed): start-up does not
 * run pending ones, nor `db:migrate down` a revert; an operator does, after a backup (allowDestructiveCommand).
 */
export class DestructiveMigrationError extends Error {
  constructor(
    readonly refused: readonly { migration: string; holds: readonly string[] }[],
    /** up: pending migrations start-up does not run; down: the revert of the last applied one. */
    readonly direction: 'up' | 'down' = 'up',
  ) {
    const lines = refused.map(({ migration, holds }) => `${migration} (destroys ${holds.join(', ')})`);
    const several = refused.length > 1;
    super(
      (direction === 'up'
        ? `pending migration${several ? 's' : ''} would destroy data, so start-up does not run ${several ? 'them' : 'it'}:`
        : 'reverting this migration would destroy data, so db:migrate down does not run it:') +
        `\n  - ${lines.join('\n  - ')}\n` +
        `Back the database up, then run: ${allowDestructiveCommand(direction)}`,
    );
    this.name = 'DestructiveMigrationError';
  }
}
