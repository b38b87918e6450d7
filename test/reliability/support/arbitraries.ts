import fc from 'fast-check';
import { METHODS, type DeclaredRoute } from './live-app';

// Generators of hostile but transmittable input. "Transmittable" means what an HTTP/1.1 client can put on
// the wire at all: header names are tokens, header values have no CR/LF/NUL. Bytes outside that grammar
// never reach the app (Node's parser answers them itself); raw-bytes.test.ts checks the process survives them.

const TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".split('');

/** Characters allowed in a header value by RFC 9110 (and Node's client): tab, visible ASCII, space, obs-text. */
export const headerChar = fc
  .oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
    { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
    { weight: 1, arbitrary: fc.constant(0x09) },
  )
  .map((code) => String.fromCharCode(code));

export const headerValue = fc.string({ unit: headerChar, maxLength: 200 });
export const headerName = fc.string({ unit: fc.constantFrom(...TOKEN_CHARS), minLength: 1, maxLength: 30 });

/** Framing and connection headers belong to the HTTP layer, not the app: a wrong Content-Length only stalls the socket. */
const FRAMING = new Set([
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'expect',
  'upgrade',
  'te',
  'keep-alive',
  'trailer',
  'http2-settings',
]);

/** Headers the app reads, and any others. */
export const headers = fc
  .dictionary(
    fc.oneof(
      fc.constantFrom(
        'authorization',
        'cookie',
        'content-type',
        'content-encoding',
        'x-request-id',
        'origin',
        'sec-fetch-site',
        'x-forwarded-for',
        'x-forwarded-proto',
        'accept',
        'accept-encoding',
        'if-none-match',
        'range',
        'access-control-request-method',
      ),
      headerName,
    ),
    headerValue,
    { maxKeys: 6 },
  )
  .map((dict) => Object.fromEntries(Object.entries(dict).filter(([name]) => !FRAMING.has(name.toLowerCase()))));

/** Content types: the JSON ones the app accepts, their near misses, and anything. */
export const contentType = fc.oneof(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'application/vnd.api+json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'text/plain',
    'application/jsonx',
    'application/',
    ';',
    '',
  ),
  headerValue,
);

/** Cookie headers: refreshToken among other names, values of any legal header characters. */
export const cookieHeader = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constant('refreshToken'), headerName),
      headerValue.filter((v) => !v.includes(';')),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => pairs.map(([name, value]) => `${name}=${value}`).join('; '));

/** A mounted route called with its own method most of the time, another method otherwise (405 / 404). */
export function target(routes: readonly DeclaredRoute[]) {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...routes) },
    {
      weight: 1,
      arbitrary: fc.record({
        method: fc.constantFrom(...METHODS),
        path: fc.constantFrom(...routes.map((r) => r.path)),
      }),
    },
  );
}

/** Request bodies: JSON values of any shape, JSON-ish text, and arbitrary strings. */
export const body = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)) },
  {
    weight: 2,
    arbitrary: fc
      .record({ email: fc.oneof(fc.string(), fc.jsonValue()), password: fc.oneof(fc.string(), fc.jsonValue()) })
      .map((value) => JSON.stringify(value)),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '{',
      '[',
      'null',
      '"x"',
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '1e999999',
      '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]',
    ),
  },
);

/** Paths: mounted ones with junk appended, percent-escapes valid and broken, dot segments, queries. */
const pathChar = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));
export function path(routes: readonly DeclaredRoute[]) {
  return fc.oneof(
    fc
      .tuple(
        fc.constantFrom(...routes.map((r) => r.path), '/api', '/api/', '/api/auth', '/api/auth/', '//', '/..'),
        fc.string({ unit: pathChar, maxLength: 40 }),
      )
      .map(([base, rest]) => base + rest),
    fc.webPath().map((p) => p || '/'),
    fc
      .array(
        fc.constantFrom(
          '%',
          '%0',
          '%zz',
          '%00',
          '%2e%2e',
          '%c0%af',
          '%ff',
          '..',
          '.',
          '%2F',
          'api',
          'auth',
          'login',
          '?',
          '&',
          '=',
          '#',
          ';',
        ),
        { maxLength: 8 },
      )
      .map((parts) => `/${parts.join('')}`),
  );
}
