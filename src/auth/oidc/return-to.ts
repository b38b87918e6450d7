/**
 * Where the browser goes after signing in: a path on PUBLIC_URL's origin, never another site. Anything
 * else — an absolute URL, a protocol-relative `//host`, a backslash (which browsers read as a slash), a
 * control character, a fragment, or more than 2000 characters — falls back to `/`.
 */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2000) return '/';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (!value.startsWith('/') || value.startsWith('//') || /[\\#\x00-\x20\x7f]/.test(value)) return '/';
  // What a browser would make of it against some origin must stay on that origin, on this very path.
  const base = 'https://return-to.invalid';
  const resolved = new URL(value, base);
  return resolved.origin === base && resolved.pathname + resolved.search === value ? value : '/';
}
