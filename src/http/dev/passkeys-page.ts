import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { RequestState } from '../routing/route';
import { PAGE_SCRIPT } from './passkeys-page-script';

// GET /dev/passkeys: a minimal page that runs the browser side of the passkey routes with
// @simplewebauthn/browser (its own bundle, from the package: no CDN), so a newcomer can try them. Served
// outside production with PASSKEYS=true; not a route of the API (no envelope), so not in the document.

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Passkeys · development page</title>
</head>
<body>
<h1>Passkeys</h1>
<p>Register (with AUTH_REGISTRATION=true) or log in with a password, add a passkey, log out, then sign in with the passkey alone.</p>
<p>
<label>Name <input id="name" value="Ada"></label>
<label>Email <input id="email" type="email" autocomplete="username webauthn" value="ada@example.com"></label>
<label>Password <input id="password" type="password" autocomplete="current-password"></label>
</p>
<p>
<button id="register">Register</button> <button id="signup">Sign up with a passkey alone</button> <button id="login">Log in</button> <button id="me">Who am I</button>
<button id="logout">Log out</button>
</p>
<p>
<label>Passkey name <input id="passkey-name" value="This browser"></label>
<button id="add">Add a passkey</button> <button id="list">My passkeys</button>
<button id="passkey">Sign in with a passkey</button>
</p>
<pre id="out"></pre>
<script src="/dev/passkeys/simplewebauthn-browser.js"></script>
<script src="/dev/passkeys/page.js"></script>
</body>
</html>
`;

/** Its own scripts, and requests to this origin only. */
const POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

let assets: Map<string, string> | undefined;

/** Read on first use and kept (tests build many apps). The package exports no package.json: found by its main file. */
function pageAssets(): Map<string, string> {
  return (assets ??= new Map([
    [
      'simplewebauthn-browser.js',
      readFileSync(
        join(dirname(require.resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle', 'index.umd.min.js'),
        'utf8',
      ),
    ],
    ['page.js', PAGE_SCRIPT],
  ]));
}

/** Adds GET /dev/passkeys and its two scripts to the router. */
export function mountPasskeyPage(router: Router<RequestState>): void {
  const send = (ctx: Context, type: string, body: string) => {
    ctx.set('Content-Security-Policy', POLICY);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = type;
    ctx.body = body;
  };
  router.get('/dev/passkeys', (ctx) => send(ctx, 'text/html; charset=utf-8', PAGE));
  router.get('/dev/passkeys/:file', (ctx, next) => {
    const script = pageAssets().get(ctx.params.file);
    return script === undefined ? next() : send(ctx, 'text/javascript; charset=utf-8', script);
  });
}
