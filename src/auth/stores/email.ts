/**
 * The one spelling of an email address the stores keep and look up: trimmed and lower-cased. Storing it
 * normalised makes the unique index and every lookup case-insensitive on every engine alike, whatever the
 * engine's collation (PostgreSQL and SQL Server compare case-sensitively, MySQL usually does not).
 */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
