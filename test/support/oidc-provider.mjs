// A real OpenID Connect provider for the tests: oidc-provider (OpenID Certified) on a free loopback port,
// with its development login and consent pages. Run as a child process (`node test/support/oidc-provider.mjs`)
// so Jest never loads it; the first stdout line is `{"issuer": "http://127.0.0.1:<port>"}`.
//
// Configuration by environment: OIDC_TEST_CLIENTS is a JSON array of {client_id, client_secret, redirect_uris}.
// The account is whatever the login page is given, `<sub>~<email>~<1 if verified, else 0>`: the tests pick
// each identity's subject, address and whether the provider vouches for it.
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const clients = JSON.parse(process.env.OIDC_TEST_CLIENTS ?? '[]').map((client) => ({
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  ...client,
}));

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients,
  cookies: { keys: ['oidc test provider cookie key 0123456789'] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  async findAccount(_ctx, id) {
    const [sub, email, verified] = id.split('~');
    return {
      accountId: id,
      claims: () => ({ sub: sub ?? id, ...(email ? { email, email_verified: verified === '1' } : {}), name: `Test ${sub ?? id}` }),
    };
  },
});
provider.on('server_error', (_ctx, error) => process.stderr.write(`oidc-provider server_error: ${error.stack}\n`));
server.on('request', provider.callback());
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
