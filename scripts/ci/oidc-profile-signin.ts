// CI (from scripts/ci/oidc-profile.sh): a sign-in through the Compose `oidc` profile's provider, as a browser
// makes it. The app's login redirects to the provider (its issuer http://oidc-dev.localhost:<port>, which a
// browser sends to loopback by itself; this script maps it there), the development login page takes a name,
// the callback sets the refresh cookie, and the access token it gives names the user with the provider linked.
// Usage: APP_URL=http://127.0.0.1:<port> PUBLIC_URL=http://localhost:<port> tsx scripts/ci/oidc-profile-signin.ts
import { ProviderBrowser } from '../../test/support/oidc-test-provider';

const app = process.env.APP_URL ?? '';
const publicUrl = process.env.PUBLIC_URL ?? '';
const name = `ada-${Date.now()}`;

function cookie(response: Response, cookieName: string): string {
  const line = response.headers.getSetCookie().find((value) => value.startsWith(`${cookieName}=`));
  if (!line) throw new Error(`no ${cookieName} cookie in the answer (${response.status})`);
  return line.split(';')[0]!;
}

async function expectStatus(response: Response, status: number, what: string): Promise<Response> {
  if (response.status !== status)
    throw new Error(`${what}: expected ${status}, got ${response.status}: ${(await response.text()).slice(0, 500)}`);
  return response;
}

async function main(): Promise<void> {
  const login = await expectStatus(
    await fetch(`${app}/api/auth/oidc/dev/login?returnTo=/welcome`, { redirect: 'manual' }),
    302,
    'login',
  );
  const authorizationUrl = login.headers.get('location')!;
  const issuer = new URL(authorizationUrl);
  if (issuer.hostname !== 'oidc-dev.localhost')
    throw new Error(`the login sent the browser to ${issuer.origin}, not the profile's provider`);
  // What a browser does for a *.localhost name (RFC 6761): this machine's loopback, the published port.
  const reach = (url: string) => url.replace(`//oidc-dev.localhost:${issuer.port}`, `//127.0.0.1:${issuer.port}`);
  const back = await new ProviderBrowser(`${publicUrl}/api/auth/oidc/dev/callback`, reach).signIn(authorizationUrl, {
    account: name,
  });

  const callback = await expectStatus(
    await fetch(`${app}/api/auth/oidc/dev/callback${back.search}`, {
      redirect: 'manual',
      headers: { cookie: cookie(login, 'oidcFlow') },
    }),
    302,
    'callback',
  );
  if (callback.headers.get('location') !== `${publicUrl}/welcome`)
    throw new Error(`the callback sent the browser to ${callback.headers.get('location')}`);
  const refreshed = await expectStatus(
    await fetch(`${app}/api/auth/refresh`, {
      method: 'POST',
      headers: { cookie: cookie(callback, 'refreshToken'), origin: publicUrl },
    }),
    200,
    'refresh',
  );
  const { accessToken } = ((await refreshed.json()) as { data: { accessToken: string } }).data;
  const me = await expectStatus(
    await fetch(`${app}/api/users/me`, { headers: { authorization: `Bearer ${accessToken}` } }),
    200,
    'GET /api/users/me',
  );
  const user = (
    (await me.json()) as { data: { email: string; hasPassword: boolean; linkedProviders: { provider: string }[] } }
  ).data;
  if (
    user.email !== `${name}@example.com` ||
    user.hasPassword ||
    user.linkedProviders.map((linked) => linked.provider).join() !== 'dev'
  ) {
    throw new Error(`unexpected user after the sign-in: ${JSON.stringify(user)}`);
  }
  console.log(
    `oidc-profile: signed in as ${name} through the oidc profile's provider (${issuer.origin}): a session, an access token, the provider linked`,
  );
}

main().catch((error: unknown) => {
  console.error(`oidc-profile: ${(error as Error).message}`);
  process.exit(1);
});
