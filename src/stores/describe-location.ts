/**
 * Where a database is, for the start-up log line: scheme, host(s) and database name, never the user's
 * password (nor the user, nor query options, which may carry credentials too).
 */
export function describeLocation(url: string): string {
  const withoutQuery = url.split('?')[0] ?? url;
  return withoutQuery.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1');
}
