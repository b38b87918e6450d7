// A development OpenID Connect provider: oidc-provider (OpenID Certified) with its own development login and
// consent pages, where any name signs in. Two users: the test suite, which runs it as a child process on a
// free loopback port (Jest never loads it), and the Compose `oidc` profile, which runs it in a container for
// trying sign-in locally (docs/authentication.md). Never a provider for real users: nothing is checked.
//
// Configuration by environment:
//   OIDC_DEV_CLIENTS  a JSON array of {client_id, client_secret, redirect_uris} (required)
//   HOST, PORT        where it listens (127.0.0.1 and a free port unless given)
//   OIDC_DEV_ISSUER   the issuer URL clients and browsers use (http://<HOST>:<port> unless given)
// The first stdout line is `{"issuer": "…"}`.
//
// The account is whatever the login page is given: `<sub>~<email>~<1 if verified, else 0>` (the tests pick
// each identity's subject, address and whether the provider vouches for it), or a plain name such as `ada`:
// subject `ada`, address `ada@example.com` (or the name itself when it is an address), verified.
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const clients = JSON.parse(process.env.OIDC_DEV_CLIENTS ?? '[]').map((client) => ({
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  ...client,
}));
if (clients.length === 0) throw new Error('OIDC_DEV_CLIENTS must list at least one client: [{"client_id", "client_secret", "redirect_uris"}]');

const host = process.env.HOST || '127.0.0.1';
const server = createServer();
await new Promise((resolve) => server.listen(Number(process.env.PORT || 0), host, resolve));
const issuer = process.env.OIDC_DEV_ISSUER || `http://${host}:${server.address().port}`;

/** The claims of a login name (see above). */
function claimsOf(id) {
  if (id.includes('~')) {
    const [sub, email, verified] = id.split('~');
    return { sub, ...(email ? { email, email_verified: verified === '1' } : {}), name: `Test ${sub}` };
  }
  return { sub: id, email: id.includes('@') ? id : `${id}@example.com`, email_verified: true, name: id };
}

const provider = new Provider(issuer, {
  clients,
  cookies: { keys: ['oidc development provider cookie key 0123456789'] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  async findAccount(_ctx, id) {
    return { accountId: id, claims: () => claimsOf(id) };
  },
});
provider.on('server_error', (_ctx, error) => process.stderr.write(`oidc-provider server_error: ${error.stack}\n`));
server.on('request', provider.callback());
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
