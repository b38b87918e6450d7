import request from 'supertest';
import { PasswordHasher } from '../../src/auth/passwords';
import { OidcAccounts } from '../../src/auth/oidc/oidc-accounts';
import { identityStore, signInMethodStore } from '../../src/auth/stores/definitions';
import { authModule } from '../../src/modules/auth';
import { usersModule } from '../../src/modules/users';
import { testEngines, type StartedEngine } from '../support/engines';
import { OidcTestProvider, ProviderBrowser, type ProviderAnswer } from '../support/oidc-test-provider';
import { buildTestApp, type TestApp } from '../support/test-app';
import { withSegmentChanged } from '../support/tamper';
import { codeAt } from '../support/totp-codes';
import { setCookies } from '../support/auth-helpers';
import { MailCatcher } from '../support/mail-catcher';

// Sign-in with an OpenID Connect provider, over HTTP, against a real provider (oidc-provider on loopback,
// its development login and consent pages) on every engine here: a first sign-in creates and links the
// user and sets the same cookies as a password login; the next finds the same user; a replayed callback,
// a forged state, an unverified address, a foreign returnTo, a declined consent and an unreachable
// provider are refused in the envelope with no session; a second factor is still asked; unlinking keeps a
// way in; deleting the user removes the link.

const PUBLIC_URL = 'https://app.example.test';
const SECRET = 'oidc-test-client-secret-0123456789';
const MFA_KEY = 'test-mfa-sealing-key-0123456789abcdef0123456789';
const PASSWORD = 'correct horse battery staple 42';
const named = (res: request.Response, name: string) => setCookies(res).find((cookie) => cookie.startsWith(`${name}=`));
const callbackOf = (name: string) => `${PUBLIC_URL}/api/auth/oidc/${name}/callback`;

let counter = 0;
/** A new end-user at the provider: `<sub>~<email>~<verified>`. */
const endUser = (verified = true, email?: string) => {
  counter += 1;
  const address = email ?? `oidc-${counter}-${Date.now()}@example.com`;
  return {
    sub: `sub-${counter}-${Date.now()}`,
    email: address,
    account: `sub-${counter}-${Date.now()}~${address}~${verified ? 1 : 0}`,
  };
};

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`OpenID Connect sign-in on ${target.label}`, () => {
    const provider = new OidcTestProvider([
      { client_id: 'service', client_secret: SECRET, redirect_uris: [callbackOf('test')] },
      { client_id: 'corp-service', client_secret: SECRET, redirect_uris: [callbackOf('corp')] },
    ]);
    const mail = new MailCatcher();
    let started: StartedEngine | undefined;
    let testApp: TestApp | undefined;
    const app = () => testApp!;
    const http = () => request(app().app.callback());

    beforeAll(async () => {
      started = await target.start();
      const issuer = await provider.start();
      testApp = await buildTestApp({
        env: {
          DATABASE_URL: started.url,
          USER_STORE: 'database',
          PUBLIC_URL,
          AUTH_RATE_LIMIT_MAX: '1000',
          MFA_ENCRYPTION_KEY: MFA_KEY,
          METRICS_PORT: '9464', // counted (never listened on: the app is built, not started)
          OIDC_PROVIDERS: 'test,corp',
          OIDC_TEST_ISSUER: issuer,
          OIDC_TEST_CLIENT_ID: 'service',
          OIDC_TEST_CLIENT_SECRET: SECRET,
          OIDC_TEST_REGISTRATION: 'true',
          OIDC_TEST_LINK_BY_EMAIL: 'true', // trusted to link a first sign-in by a verified address; corp is not
          SMTP_URL: await mail.start(),
          OIDC_CORP_ISSUER: issuer,
          OIDC_CORP_CLIENT_ID: 'corp-service',
          OIDC_CORP_CLIENT_SECRET: SECRET,
          OIDC_CORP_REGISTRATION: 'false',
        },
        modules: [authModule, usersModule],
      });
    }, 240_000);
    afterAll(async () => {
      await testApp?.close();
      await mail.stop();
      await provider.stop();
      await started?.stop();
    }, 60_000);

    /** GET …/login: the provider's authorization URL and the flow cookie (as a Cookie header). */
    const startLogin = async (name = 'test', returnTo?: string, fresh?: boolean) => {
      const res = await http()
        .get(`/api/auth/oidc/${name}/login`)
        .query({ ...(returnTo === undefined ? {} : { returnTo }), ...(fresh ? { fresh } : {}) })
        .expect(302);
      const flow = named(res, 'oidcFlow');
      expect(flow).toMatch(/^oidcFlow=[^;]+; Path=\/api\/auth\/oidc; Max-Age=600; HttpOnly; SameSite=Lax$/);
      return { authorizationUrl: res.headers.location as string, flowCookie: flow!.split(';')[0] };
    };
    /** The provider's redirect back to the service, after signing in there as `answer`. */
    const atProvider = (authorizationUrl: string, answer: ProviderAnswer, name = 'test') =>
      new ProviderBrowser(callbackOf(name)).signIn(authorizationUrl, answer);
    const callback = (url: URL, flowCookie: string, name = 'test') =>
      http().get(`/api/auth/oidc/${name}/callback${url.search}`).set('Cookie', flowCookie);
    /** The whole flow; the callback's answer, which must have this status. */
    const signInAs = async (
      answer: ProviderAnswer,
      status: number,
      options: { name?: string; returnTo?: string; fresh?: boolean } = {},
    ) => {
      const { authorizationUrl, flowCookie } = await startLogin(options.name, options.returnTo, options.fresh);
      return callback(await atProvider(authorizationUrl, answer, options.name), flowCookie, options.name).expect(
        status,
      );
    };
    /** The access token for a callback's refresh cookie, as a client gets it after any login. */
    const bearerAfter = async (res: request.Response) => {
      const refreshed = await http()
        .post('/api/auth/refresh')
        .set('Cookie', named(res, 'refreshToken')!.split(';')[0])
        .expect(200);
      return `Bearer ${refreshed.body.data.accessToken as string}`;
    };
    const me = async (bearer: string) =>
      (await http().get('/api/users/me').set('Authorization', bearer).expect(200)).body.data;
    /** auth_oidc_total for one outcome, as Prometheus would scrape it. */
    const counted = async (outcome: string) => {
      const text = (await app().services.metrics.render()).body;
      return Number(new RegExp(`^auth_oidc_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
    };
    const expectNoSession = (res: request.Response) => {
      expect(named(res, 'refreshToken')).toBeUndefined();
      expect(named(res, 'loginDevice')).toBeUndefined();
      expect(res.headers.location).toBeUndefined();
    };

    it('a first sign-in creates and links the user, with the cookies of a password login; the next finds the same user', async () => {
      const user = endUser();
      const { authorizationUrl, flowCookie } = await startLogin('test', '/account?tab=security');
      const authorization = new URL(authorizationUrl);
      expect(authorization.origin).toBe(provider.issuer);
      expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: 'service',
        redirect_uri: callbackOf('test'),
        scope: 'openid email profile',
        code_challenge_method: 'S256',
        code_challenge: expect.stringMatching(/^[\w-]{43}$/),
        state: expect.stringMatching(/^[\w-]{43}$/),
        nonce: expect.stringMatching(/^[\w-]{43}$/),
      });

      const signedIn = await callback(await atProvider(authorizationUrl, { account: user.account }), flowCookie).expect(
        302,
      );
      expect(signedIn.headers.location).toBe(`${PUBLIC_URL}/account?tab=security`);
      expect(named(signedIn, 'refreshToken')).toMatch(
        /^refreshToken=[^;]+; Path=\/api\/auth; Max-Age=604800; HttpOnly; SameSite=Strict$/,
      );
      expect(named(signedIn, 'loginDevice')).toMatch(
        /^loginDevice=[^;]+; Path=\/api\/auth; Max-Age=15552000; HttpOnly; SameSite=Strict$/,
      );
      expect(named(signedIn, 'oidcFlow')).toMatch(/^oidcFlow=; Path=\/api\/auth\/oidc; Max-Age=0;/);
      const bearer = await bearerAfter(signedIn);
      const first = await me(bearer);
      expect(first).toMatchObject({
        email: user.email,
        emailVerified: true,
        role: 'user',
        name: `Test ${user.account.split('~')[0]}`,
        hasPassword: false,
      });
      expect(first.linkedProviders).toEqual([{ provider: 'test', linkedAt: expect.any(String) }]);

      const again = await signInAs({ account: user.account }, 302);
      expect((await me(await bearerAfter(again))).id).toBe(first.id);
      const outcomes = app()
        .logLines()
        .filter((line) => line.action === 'oidc-login')
        .slice(-2)
        .map((line) => [line.outcome, line.linked, line.provider]);
      expect(outcomes).toEqual([
        ['success', 'created', 'test'],
        ['success', 'linked', 'test'],
      ]);
      expect(await counted('success')).toBeGreaterThanOrEqual(2);
    });

    it('a replayed callback is refused (the provider will not exchange a code twice) and sets nothing', async () => {
      const { authorizationUrl, flowCookie } = await startLogin();
      const back = await atProvider(authorizationUrl, { account: endUser().account });
      await callback(back, flowCookie).expect(302);
      const replayed = await callback(back, flowCookie).expect(401);
      // Fixed words for the browser; what the library said goes to the log only.
      expect(replayed.body).toEqual({ status: 'fail', message: 'The sign-in could not be completed: start again' });
      expect(
        app()
          .logLines()
          .filter((line) => line.action === 'oidc-login')
          .at(-1),
      ).toMatchObject({ outcome: 'refused', reason: 'exchange-failed', detail: 'invalid_grant' });
      expectNoSession(replayed);
      expect(named(replayed, 'oidcFlow')).toMatch(/^oidcFlow=;/);
    });

    it('a forged or foreign state, a missing or tampered flow cookie, or another provider’s flow: 400, nothing set', async () => {
      const { authorizationUrl, flowCookie } = await startLogin();
      const back = await atProvider(authorizationUrl, { account: endUser().account });
      const forged = new URL(back);
      forged.searchParams.set('state', 'A'.repeat(43));
      const message = 'This sign-in was not started in this browser, or it expired: start again';
      for (const attempt of [
        callback(forged, flowCookie),
        http().get(`/api/auth/oidc/test/callback${back.search}`), // another browser: no flow cookie
        callback(back, withSegmentChanged(flowCookie, 4)), // tampered seal (its tag)
        callback(back, (await startLogin()).flowCookie), // this browser's other, newer flow
        callback(back, flowCookie, 'corp'), // the flow of another provider
      ]) {
        const refused = await attempt.expect(400);
        expect(refused.body).toEqual({ status: 'fail', message });
        expectNoSession(refused);
      }
      await callback(back, flowCookie).expect(302); // the genuine one still works: nothing was spent
      const reasons = app()
        .logLines()
        .filter((line) => line.action === 'oidc-login' && line.outcome === 'refused')
        .slice(-5)
        .map((line) => line.reason);
      expect(reasons).toEqual(Array(5).fill('bad-state'));
      expect(await counted('bad-state')).toBe(5);
    });

    it('an address the provider has not verified neither links to the local account that holds it nor creates one', async () => {
      const email = `local-${Date.now()}@example.com`;
      const local = await app().services.users.create({
        email,
        passwordHash: 'not-a-password-hash',
        role: 'user',
        name: 'Local',
        emailVerified: true,
      });
      const unverified = await signInAs({ account: `attacker-${Date.now()}~${email.toUpperCase()}~0` }, 403);
      expect(unverified.body.message).toMatch(/^The provider has not verified an email address/);
      expectNoSession(unverified);
      await signInAs({ account: `nobody-${Date.now()}~fresh-${Date.now()}@example.com~0` }, 403); // nor creates one
      expect(await app().services.database.store(identityStore).listByUser(local.id)).toEqual([]);

      // The same address verified by the provider links to the local user…
      const linked = await signInAs({ account: `owner-${Date.now()}~${email}~1` }, 302);
      expect((await me(await bearerAfter(linked))).id).toBe(local.id);
      // …but never to a local account whose own address is unproven (someone may have registered it first).
      const squatted = `squatted-${Date.now()}@example.com`;
      await app().services.users.create({
        email: squatted,
        passwordHash: 'not-a-password-hash',
        role: 'user',
        name: null,
        emailVerified: false,
      });
      const refused = await signInAs({ account: `victim-${Date.now()}~${squatted}~1` }, 409);
      expect(refused.body.message).toMatch(/^An account uses this address but has not verified it/);
      expectNoSession(refused);
    });

    it('links by address only by consent: a provider not trusted for it, an admin, answer that an account uses the address', async () => {
      const email = `holder-${Date.now()}@example.com`;
      const holder = await app().services.users.create({
        email,
        passwordHash: await new PasswordHasher().hash(PASSWORD),
        role: 'user',
        name: null,
        emailVerified: true,
      });
      const untrusted = await signInAs({ account: `corp-${Date.now()}~${email}~1` }, 409, { name: 'corp' });
      expect(untrusted.body.message).toMatch(
        /^An account uses this address: sign in to it the way it signs in .*POST \/api\/auth\/oidc\/\{provider\}\/link/,
      );
      expectNoSession(untrusted);
      // A hostile provider asserting an administrator's address, even one trusted to link by address.
      const adminEmail = `admin-${Date.now()}@example.com`;
      const admin = await app().services.users.create({
        email: adminEmail,
        passwordHash: await new PasswordHasher().hash(PASSWORD),
        role: 'admin',
        name: null,
        emailVerified: true,
      });
      expectNoSession(await signInAs({ account: `hostile-${Date.now()}~${adminEmail}~1` }, 409));
      const identities = app().services.database.store(identityStore);
      expect(await identities.listByUser(admin.id)).toEqual([]);
      expect(await identities.listByUser(holder.id)).toEqual([]);
      expect(
        app()
          .logLines()
          .filter((line) => line.action === 'oidc-login')
          .slice(-2)
          .map((line) => line.reason),
      ).toEqual(['account-exists', 'account-exists']);
    });

    it('the owner links a provider from a signed-in session, with the password; the owner is mailed when it is added and removed', async () => {
      const email = `linker-${Date.now()}@example.com`;
      await app().services.users.create({
        email,
        passwordHash: await new PasswordHasher().hash(PASSWORD),
        role: 'admin',
        name: null,
        emailVerified: true,
      });
      const bearer = `Bearer ${(await http().post('/api/auth/login').send({ email, password: PASSWORD }).expect(200)).body.data.accessToken as string}`;
      await http()
        .post('/api/auth/oidc/corp/link')
        .set('Authorization', bearer)
        .send({ password: 'not the password' })
        .expect(401);
      const started = await http()
        .post('/api/auth/oidc/corp/link')
        .set('Authorization', bearer)
        .send({ password: PASSWORD, returnTo: '/account' })
        .expect(200);
      const flowCookie = named(started, 'oidcFlow')!.split(';')[0];
      const account = `linked-${Date.now()}~elsewhere-${Date.now()}@example.com~1`; // any address: the session says whose account
      const linked = await callback(
        await atProvider(started.body.data.authorizationUrl as string, { account }, 'corp'),
        flowCookie,
        'corp',
      ).expect(302);
      expect(linked.headers.location).toBe(`${PUBLIC_URL}/account`);
      expect(named(linked, 'refreshToken')).toBeUndefined(); // the caller is signed in already
      expect((await me(bearer)).linkedProviders).toEqual([{ provider: 'corp', linkedAt: expect.any(String) }]);
      const [added] = await mail.waitFor(email);
      expect(added!.subject).toBe('A way to sign in was added to your account');
      expect(added!.text).toContain('sign-in with corp');
      // From now on the provider signs in to this account.
      expect((await me(await bearerAfter(await signInAs({ account }, 302, { name: 'corp' })))).email).toBe(email);
      await http().delete('/api/auth/oidc/corp/link').set('Authorization', bearer).expect(204);
      const [, removed] = await mail.waitFor(email, 2);
      expect(removed!.subject).toBe('A way to sign in was removed from your account');
    });

    it('creates no account through a provider without registration', async () => {
      const refused = await signInAs({ account: endUser().account }, 403, { name: 'corp' });
      expect(refused.body).toEqual({
        status: 'fail',
        message: 'No account uses this address, and accounts are not created through this provider',
      });
      expectNoSession(refused);
    });

    it('takes what fits: a long name is cut to 100 characters, a subject over 255 is refused', async () => {
      const long = `s${'x'.repeat(199)}`;
      const bearer = await bearerAfter(await signInAs({ account: `${long}~long-${Date.now()}@example.com~1` }, 302));
      expect((await me(bearer)).name).toBe(`Test ${long}`.slice(0, 100));
      const refused = await signInAs({ account: `${'s'.repeat(256)}~too-long-${Date.now()}@example.com~1` }, 401);
      expect(refused.body.message).toBe('The sign-in could not be completed: start again');
      expect(
        app()
          .logLines()
          .filter((line) => line.action === 'oidc-login')
          .at(-1),
      ).toMatchObject({ detail: 'the subject identifier is not 1-255 visible ASCII characters' });
      expectNoSession(refused);
    });

    it('returnTo pointing anywhere but a path on PUBLIC_URL lands on /', async () => {
      for (const returnTo of [
        'https://evil.example/x',
        '//evil.example/x',
        '/\\evil.example',
        'javascript:alert(1)',
        '/a#b',
      ]) {
        const res = await signInAs({ account: endUser().account }, 302, { returnTo });
        expect(res.headers.location).toBe(`${PUBLIC_URL}/`);
      }
    });

    it('a declined consent answers 401 in the envelope and sets nothing', async () => {
      const declined = await signInAs({ account: endUser().account, consent: false }, 401);
      expect(declined.body).toEqual({
        status: 'fail',
        message: 'The provider did not complete the sign-in (it was declined or refused): start again',
      });
      expect(
        app()
          .logLines()
          .filter((line) => line.action === 'oidc-login')
          .at(-1),
      ).toMatchObject({ reason: 'denied', detail: 'access_denied' });
      expectNoSession(declined);
    });

    it('a user with two-factor login: the provider is the first factor, the code is still asked', async () => {
      // Enrolment takes the password: a local account with one, linked to the provider by its verified address.
      const email = `mfa-${Date.now()}@example.com`;
      await app().services.users.create({
        email,
        passwordHash: await new PasswordHasher().hash(PASSWORD),
        role: 'user',
        name: null,
        emailVerified: true,
      });
      const account = `mfa-${Date.now()}~${email}~1`;
      const bearer = await bearerAfter(await signInAs({ account }, 302));
      const { secret } = (
        await http().post('/api/auth/mfa/enroll').set('Authorization', bearer).send({ password: PASSWORD }).expect(200)
      ).body.data;
      await http()
        .post('/api/auth/mfa/confirm')
        .set('Authorization', bearer)
        .send({ code: await codeAt(secret) })
        .expect(200);

      const challenged = await signInAs({ account }, 302, { returnTo: '/home' });
      expect(named(challenged, 'refreshToken')).toBeUndefined();
      const location = new URL(challenged.headers.location as string);
      expect(`${location.origin}${location.pathname}`).toBe(`${PUBLIC_URL}/home`);
      const mfaToken = new URLSearchParams(location.hash.slice(1)).get('mfaToken')!;
      const verified = await http()
        .post('/api/auth/mfa/verify')
        .send({ mfaToken, code: await codeAt(secret, 1) })
        .expect(200);
      expect(named(verified, 'refreshToken')).toBeDefined();
      expect(
        app()
          .logLines()
          .filter((line) => line.action === 'oidc-login')
          .at(-1),
      ).toMatchObject({ outcome: 'mfa-required', linked: 'linked' });
    });

    it('unlinking keeps a way to sign in; deleting the user removes their links', async () => {
      // Unlinking is a change to the ways in: a fresh sign-in at the provider proves the owner.
      const providerOnly = await bearerAfter(await signInAs({ account: endUser().account }, 302, { fresh: true }));
      const last = await http().delete('/api/auth/oidc/test/link').set('Authorization', providerOnly).expect(409);
      expect(last.body.message).toMatch(/^This is the last way to sign in/);

      const email = `with-password-${Date.now()}@example.com`;
      const local = await app().services.users.create({
        email,
        passwordHash: 'not-a-password-hash',
        role: 'user',
        name: null,
        emailVerified: true,
      });
      const bearer = await bearerAfter(
        await signInAs({ account: `pw-${Date.now()}~${email}~1` }, 302, { fresh: true }),
      );
      const linked = await me(bearer);
      expect(linked).toMatchObject({ id: local.id, hasPassword: true }); // linked to the account holding the verified address
      expect(linked.linkedProviders).toHaveLength(1);
      const unlinked = await http().delete('/api/auth/oidc/test/link').set('Authorization', bearer).expect(204);
      await http().get('/api/users/me').set('Authorization', bearer).expect(401); // every other session ended
      const next = await bearerAfter(unlinked); // the caller's goes on
      expect(await me(next)).toMatchObject({ hasPassword: true, linkedProviders: [] });
      // Its proof was the provider just unlinked: it no longer signs this account in, so the next change asks again.
      const again = await http().delete('/api/auth/oidc/test/link').set('Authorization', next).expect(401);
      expect(again.body.message).toMatch(/\[proofs: password\]$/);

      const identities = app().services.database.store(identityStore);
      const linkedUser = (await me(providerOnly)).id as string;
      expect(await identities.listByUser(linkedUser)).toHaveLength(1);
      const admin = await app().signIn('admin');
      await http().delete(`/api/users/${linkedUser}`).set('Authorization', admin.authorization).expect(204);
      expect(await identities.listByUser(linkedUser)).toEqual([]);
    });

    it("two unlinks at once of a password-less user's last two identities leave one (on this engine's store)", async () => {
      const identities = app().services.database.store(identityStore);
      const accounts = new OidcAccounts(
        app().services.users,
        identities,
        app().services.database.store(signInMethodStore),
      );
      for (let round = 0; round < 5; round += 1) {
        const user = await me(await bearerAfter(await signInAs({ account: endUser().account }, 302)));
        const [first] = await identities.listByUser(user.id as string);
        await identities.link({
          issuer: 'https://other-idp.example.com',
          subject: `other-${round}-${Date.now()}`,
          userId: user.id as string,
          provider: 'other',
        });
        const record = (await app().services.users.findById(user.id as string))!;
        const outcomes = await Promise.all([
          accounts.unlink(record, first!.issuer),
          accounts.unlink(record, 'https://other-idp.example.com'),
        ]);
        const left = await identities.listByUser(user.id as string);
        expect(left.length).toBeGreaterThanOrEqual(1);
        expect(left).toHaveLength(1); // decided under a lock on the user: exactly one goes
        expect(outcomes.filter((outcome) => outcome === 'last-way')).toHaveLength(1);
      }
    });

    it('lists the providers, and answers 404 for one not configured', async () => {
      const list = await http().get('/api/auth/oidc').expect(200);
      expect(list.body.data).toEqual([
        { name: 'test', loginUrl: `${PUBLIC_URL}/api/auth/oidc/test/login` },
        { name: 'corp', loginUrl: `${PUBLIC_URL}/api/auth/oidc/corp/login` },
      ]);
      expect((await http().get('/api/auth/oidc/other/login').expect(404)).body).toEqual({
        status: 'fail',
        message: 'No such sign-in provider',
      });
    });

    // Last: it stops the provider.
    it('a provider that cannot be reached at the callback: 502 in the envelope, nothing set', async () => {
      const { authorizationUrl, flowCookie } = await startLogin();
      const back = await atProvider(authorizationUrl, { account: endUser().account });
      await provider.stop();
      const down = await callback(back, flowCookie).expect(502);
      expect(down.body).toEqual({ status: 'fail', message: 'The provider could not be reached: try again later' });
      expectNoSession(down);
    });
  });
}
