import { ConnectionError, TimeoutError, UniqueConstraintError } from 'sequelize';
import { CheckViolationError, DuplicateKeyError, ForeignKeyViolationError, StoreUnavailableError } from '../errors';

/** Socket-level and server-state codes meaning "the database is not there right now", across the drivers. */
const UNAVAILABLE_CODES = new Set([
  // Node sockets
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
  // mysql2
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  // tedious (SQL Server)
  'ESOCKET',
  'ETIMEOUT',
  'ECLOSE',
  'ECONNCLOSED',
  'EINVALIDSTATE',
  // PostgreSQL SQLSTATEs: query canceled (statement_timeout), admin/crash shutdown, cannot connect now, too many connections
  '57014',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  // SQLite: the file is locked by another connection or process (transient; a retry succeeds once it is released);
  // a statement interrupted for running past the statement budget (statement-budget.ts)
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_INTERRUPT',
  // MySQL: a SELECT past max_execution_time (the statement budget)
  'ER_QUERY_TIMEOUT',
]);

/** MariaDB's errno for a statement past max_statement_time (mysql2 has no name for it), and MySQL's for max_execution_time. */
const STATEMENT_TIMEOUT_ERRNOS = new Set([1969, 3024]);

const UNAVAILABLE_MESSAGE =
  /connection terminated|connection (is )?closed|not queryable|query read timeout|timeout expired|connection lost|socket hang up/i;

function causeOf(error: unknown): { code?: unknown; message?: unknown } {
  const original =
    (error as { original?: unknown; parent?: unknown }).original ?? (error as { parent?: unknown }).parent;
  return (original ?? error ?? {}) as { code?: unknown; message?: unknown };
}

function isUnavailable(error: unknown): boolean {
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  const cause = causeOf(error);
  if (typeof cause.code === 'string' && UNAVAILABLE_CODES.has(cause.code)) return true;
  if (STATEMENT_TIMEOUT_ERRNOS.has(Number((cause as { errno?: unknown }).errno))) return true;
  // pg reports a 08xxx SQLSTATE (connection exception class) for broken sessions.
  if (typeof cause.code === 'string' && /^08/.test(cause.code)) return true;
  const message = typeof cause.message === 'string' ? cause.message : error instanceof Error ? error.message : '';
  return UNAVAILABLE_MESSAGE.test(message);
}

/**
 * A unique-key violation, told by the drivers' codes, not message text: Sequelize recognises SQL Server's
 * by its English message, so on a server set to another language a taken email was a 500.
 * PostgreSQL SQLSTATE 23505; MySQL/MariaDB errno 1062 (ER_DUP_ENTRY); SQL Server 2627 (unique constraint)
 * and 2601 (unique index); SQLite SQLITE_CONSTRAINT_UNIQUE / _PRIMARYKEY (extended codes 2067, 1555).
 */
function isDuplicate(error: unknown): boolean {
  if (error instanceof UniqueConstraintError) return true;
  const cause = causeOf(error) as { code?: unknown; errno?: unknown; number?: unknown; message?: unknown };
  if (cause.code === '23505' || cause.code === 'ER_DUP_ENTRY' || cause.errno === 1062) return true;
  if (cause.number === 2627 || cause.number === 2601) return true;
  return (
    cause.code === 'SQLITE_CONSTRAINT' &&
    (cause.errno === 2067 || cause.errno === 1555 || /^SQLITE_CONSTRAINT: UNIQUE/.test(String(cause.message)))
  );
}

/** The kinds of constraint a SQL Server 547 can name, told by the constraint's name (below). */
type ConstraintKind = 'foreign key' | 'check' | undefined;

/**
 * The kind of a constraint by the shape of its name. Every name a constraint of ours can have is one of
 * these: SQL Server's system names (`FK__tags__note__1A2B3C4D` for a reference declared inline, `CK__…` for
 * a CHECK), Sequelize's addConstraint (`tags_note_notes_fk`), and the kit's deterministic CHECK names
 * (`<table>_<column>_check`); mssql-dependants.ts keeps each name when it makes a constraint again.
 */
export function constraintKindOf(name: string): ConstraintKind {
  if (/^FK_/i.test(name) || /_fk(ey)?$/i.test(name)) return 'foreign key';
  if (/^CK_/i.test(name) || /_(check|ck)$/i.test(name)) return 'check';
  return undefined;
}

/** Names in double quotes of the languages' kinds ("…", «…», “…”, „…“, 「…」); single quotes are apostrophes too. */
const QUOTED = [/"([^"]+)"/g, /«\s?([^»]+?)\s?»/g, /“([^”]+)”/g, /„([^“]+)“/g, /「([^」]+)」/g];

function quotedNames(message: string): string[] {
  return QUOTED.flatMap((pattern) => [...message.matchAll(pattern)].map((match) => match[1]!));
}

/**
 * Whether SQL Server's 547 ("The %ls statement conflicted with the %ls constraint "%.*ls"…", any constraint
 * conflict) is a FOREIGN KEY one: told by the constraint it names (the first quoted name of a known shape:
 * table, database and column names in the message do not have one), not by where words stand in a
 * message the server writes in its own language. A constraint of no known shape (one made by hand) is
 * taken by the untranslated keyword FOREIGN KEY / REFERENCE in the message.
 */
export function isForeignKeyConflict(message: unknown): boolean {
  const text = typeof message === 'string' ? message : '';
  const kind = quotedNames(text)
    .map(constraintKindOf)
    .find((found) => found !== undefined);
  return kind ? kind === 'foreign key' : /\b(FOREIGN KEY|REFERENCE)\b/.test(text);
}

/**
 * A foreign-key violation: PostgreSQL SQLSTATE 23503; MySQL/MariaDB errno 1451 (row is referenced) and 1452
 * (no referenced row); SQL Server 547 unless a CHECK constraint conflicted (which, like a CHECK violation on
 * the other engines, passes through: no reference is missing); SQLite SQLITE_CONSTRAINT_FOREIGNKEY (787).
 */
function isForeignKeyViolation(error: unknown): boolean {
  const cause = causeOf(error) as { code?: unknown; errno?: unknown; number?: unknown; message?: unknown };
  if (cause.code === '23503' || cause.errno === 1451 || cause.errno === 1452) return true;
  if (cause.number === 547) return isForeignKeyConflict(cause.message);
  return (
    cause.code === 'SQLITE_CONSTRAINT' &&
    (cause.errno === 787 || /^SQLITE_CONSTRAINT: FOREIGN KEY/.test(String(cause.message)))
  );
}

/**
 * A CHECK constraint's refusal: PostgreSQL SQLSTATE 23514; MariaDB errno 4025 (ER_CONSTRAINT_FAILED), MySQL
 * 3819 (ER_CHECK_CONSTRAINT_VIOLATED); SQL Server 547 naming a CHECK constraint; SQLite
 * SQLITE_CONSTRAINT_CHECK (275). The constraint's name, where the driver gives it or the message quotes it.
 */
function checkViolation(error: unknown): CheckViolationError | undefined {
  const cause = causeOf(error) as {
    code?: unknown;
    errno?: unknown;
    number?: unknown;
    message?: unknown;
    constraint?: unknown;
  };
  const message = String(cause.message ?? '');
  const held =
    cause.code === '23514' ||
    cause.errno === 4025 ||
    cause.errno === 3819 ||
    (cause.number === 547 && !isForeignKeyConflict(cause.message)) ||
    (cause.code === 'SQLITE_CONSTRAINT' && (cause.errno === 275 || /^SQLITE_CONSTRAINT: CHECK/.test(message)));
  if (!held) return undefined;
  const named = typeof cause.constraint === 'string' ? cause.constraint : /(\w+_check)\b/.exec(message)?.[1];
  return new CheckViolationError(named, { cause: error });
}

/** Driver/Sequelize errors → the store's domain errors; anything else is passed through unchanged (a bug: 500). */
export function translateSqlError(error: unknown): unknown {
  // First: Sequelize reports SQLite's CHECK failures as a UniqueConstraintError.
  const check = checkViolation(error);
  if (check) return check;
  if (isDuplicate(error)) return new DuplicateKeyError(undefined, { cause: error });
  if (isForeignKeyViolation(error)) return new ForeignKeyViolationError({ cause: error });
  if (isUnavailable(error)) return new StoreUnavailableError(undefined, { cause: error });
  return error;
}
