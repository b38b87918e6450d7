import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { createHttpServer } from '../../src/http/http-server';
import { authModule } from '../../src/modules/auth';
import { usersModule } from '../../src/modules/users';
import { testEngines, type StartedEngine } from '../support/engines';
import { MailCatcher } from '../support/mail-catcher';
import { buildTestApp, type TestApp } from '../support/test-app';
import { skipNotice } from '../support/skip-notice';

// Passkeys in a real browser: headless Chromium with a virtual authenticator (DevTools `WebAuthn` domain:
// CTAP2, internal transport, resident keys, user verification) on the development page /dev/passkeys, on every
// engine named by TEST_*_URL (SQLite always). A user registers with a password, adds a passkey, logs out and
// signs in with the passkey alone; another browser cannot; a replayed or raced answer, another origin, a removed
// passkey and a cloned one whose counter went backwards are refused as docs/authentication.md says.
// Without Chromium (CHROMIUM_PATH, default /usr/bin/chromium) the suite is skipped with the reason printed;
// CI installs it and requires it (scripts/ci/databases.sh; scripts/ci/passkeys-browser.sh runs this suite alone).

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const PASSWORD = 'correct horse battery staple 42';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP localhost 127.0.0.1',
];

const chromiumMissing = existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
if (chromiumMissing && process.env.REQUIRE_CHROMIUM === '1')
  throw new Error(`[passkeys in a browser] REQUIRE_CHROMIUM=1 but ${chromiumMissing}`);
if (chromiumMissing) skipNotice(`[passkeys in a browser] SKIPPED — ${chromiumMissing}`);
const engines = testEngines();

/** A free loopback port: PUBLIC_URL (the relying party's origin) must name it before the app is built. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

interface Answer {
  status: number;
  body: { data?: Record<string, unknown> & { accessToken?: string }; message?: string } | null;
}
type Json = Record<string, unknown>;

/** A browser context with its own virtual authenticator (or none). */
async function openContext(
  browser: Browser,
  base: string,
  withAuthenticator: boolean,
): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession; authenticatorId?: string }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  let authenticatorId: string | undefined;
  if (withAuthenticator) {
    await cdp.send('WebAuthn.enable', { enableUI: false });
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    }));
  }
  await page.goto(`${base}/dev/passkeys`);
  return { context, page, cdp, authenticatorId };
}

/** Runs one of the development page's steps (window.passkeyDemo) and gives its answer. */
const step = (page: Page, name: string, ...args: string[]) =>
  page.evaluate(
    ([name, args]) =>
      (globalThis as unknown as { passkeyDemo: Record<string, (...a: string[]) => Promise<unknown>> }).passkeyDemo[
        name
      ]!(...args),
    [name, args] as const,
  ) as Promise<Answer & Json>;

/** A sign-in answer made in the page (options, then the authenticator), not sent: the test decides where it goes. */
const assertion = (page: Page) =>
  page.evaluate(async () => {
    const options = (await (
      await fetch('/api/auth/passkeys/login/options', { method: 'POST', credentials: 'include' })
    ).json()) as { data: unknown };
    const browser = (
      globalThis as unknown as {
        SimpleWebAuthnBrowser: { startAuthentication(o: { optionsJSON: unknown }): Promise<unknown> };
      }
    ).SimpleWebAuthnBrowser;
    return (await browser.startAuthentication({ optionsJSON: options.data })) as Json;
  });

/** Posts a sign-in answer from the page (its cookies, its origin); `times` at once. */
const verifyIn = (page: Page, credential: Json, times = 1) =>
  page.evaluate(
    async ([credential, times]) =>
      Promise.all(
        Array.from({ length: times }, async () => {
          const response = await fetch('/api/auth/passkeys/login/verify', {
            method: 'POST',
            credentials: 'include',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ credential }),
          });
          return { status: response.status, body: (await response.json()) as Answer['body'] };
        }),
      ),
    [credential, times] as const,
  );

/** The credential with its client data's origin replaced: what a page on another origin would send. */
function fromOrigin(credential: Json, origin: string): Json {
  const response = credential.response as Json;
  const clientData = JSON.parse(Buffer.from(response.clientDataJSON as string, 'base64url').toString('utf8')) as Json;
  return {
    ...credential,
    response: {
      ...response,
      clientDataJSON: Buffer.from(JSON.stringify({ ...clientData, origin })).toString('base64url'),
    },
  };
}

for (const target of engines) {
  (target.skipReason || chromiumMissing ? describe.skip : describe)(`passkeys in Chromium on ${target.label}`, () => {
    let started: StartedEngine | undefined;
    let testApp: TestApp | undefined;
    let server: Server | undefined;
    let browser: Browser | undefined;
    const mail = new MailCatcher();
    let base = '';
    const email = `passkey-${Date.now()}-${process.pid}@example.com`;

    beforeAll(async () => {
      started = await target.start();
      const port = await freePort();
      base = `http://localhost:${port}`;
      testApp = await buildTestApp({
        env: {
          DATABASE_URL: started.url,
          USER_STORE: 'database',
          PUBLIC_URL: base,
          PASSKEYS: 'true',
          AUTH_REGISTRATION: 'true',
          AUTH_RATE_LIMIT_MAX: '10000',
          METRICS_PORT: '9464',
          SMTP_URL: await mail.start(),
        },
        modules: [authModule, usersModule],
      });
      server = createHttpServer(testApp.app);
      await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
      browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      await testApp?.close();
      await mail.stop();
      await started?.stop();
    }, 60_000);

    it('registers with a password, adds a passkey, logs out and signs in with the passkey alone; refuses replays, races, another origin, another browser, a clone and a removed passkey', async () => {
      const a = await openContext(browser!, base, true);
      const { page } = a;
      expect((await step(page, 'register', 'Ada', email, PASSWORD)).status).toBe(201);
      expect((await step(page, 'login', email, PASSWORD)).status).toBe(200);
      // A wrong password adds nothing (the access token alone is not enough).
      expect((await step(page, 'addPasskey', 'not the password at all', 'Laptop')).status).toBe(401);
      const added = await step(page, 'addPasskey', PASSWORD, 'Laptop');
      expect(added.status).toBe(201);
      expect(added.body!.data).toMatchObject({ name: 'Laptop', transports: ['internal'], lastUsedAt: null });
      // The owner is told, by the notice every way to sign in uses, naming the passkey.
      const [addedMail] = await mail.waitFor(email);
      expect(addedMail).toMatchObject({
        subject: 'A way to sign in was added to your account',
        text: expect.stringContaining('a passkey "Laptop"'),
      });
      expect(addedMail!.html).toContain('a passkey &quot;Laptop&quot;');
      const listed = await step(page, 'list');
      expect((listed.body!.data as unknown as unknown[]).length).toBe(1);
      expect(
        (await a.cdp.send('WebAuthn.getCredentials', { authenticatorId: a.authenticatorId! })).credentials,
      ).toEqual([expect.objectContaining({ isResidentCredential: true, rpId: 'localhost' })]);

      // Sign out, then in with the passkey alone: the same access token, refresh and device cookies as a password login.
      expect((await step(page, 'logout')).status).toBe(204);
      expect((await step(page, 'me')).status).toBe(401);
      const signedIn = await step(page, 'signInWithPasskey');
      expect(signedIn).toEqual(expect.objectContaining({ status: 200 }));
      expect(signedIn.body!.data).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 900 });
      expect((await step(page, 'me')).body!.data).toMatchObject({ email });
      expect((await step(page, 'refresh')).status).toBe(200); // the refresh cookie was set
      const cookies = (await a.context.cookies()).map((cookie) => cookie.name);
      expect(cookies).toEqual(expect.arrayContaining(['refreshToken', 'loginDevice', 'passkeyFlow']));

      // A replayed answer: its challenge was used up by the first verify.
      const answer = await assertion(page);
      const [first] = await verifyIn(page, answer);
      expect(first!.status).toBe(200);
      const [replayed] = await verifyIn(page, answer);
      expect(replayed).toEqual({
        status: 401,
        body: expect.objectContaining({ message: expect.stringContaining('used already') }),
      });
      // Five verifies racing with one answer: exactly one signs in.
      const raced = await verifyIn(page, await assertion(page), 5);
      expect(raced.map((outcome) => outcome.status).sort()).toEqual([200, 401, 401, 401, 401]);
      // An answer made for another origin (a phishing page's) is refused.
      const [phished] = await verifyIn(page, fromOrigin(await assertion(page), 'http://evil.localhost:5173'));
      expect(phished!.status).toBe(401);

      // A second browser: no credential of this site, so no sign-in; and A's answer does not work there (its challenge is bound to A).
      const b = await openContext(browser!, base, true);
      const empty = await step(b.page, 'signInWithPasskey');
      expect(empty).toMatchObject({ error: 'NotAllowedError' });
      const [foreign] = await verifyIn(b.page, await assertion(page));
      expect(foreign!.status).toBe(401);
      await b.context.close();

      // A clone: the same key with a lower signature counter (an authenticator copied earlier) is refused.
      const [credential] = (await a.cdp.send('WebAuthn.getCredentials', { authenticatorId: a.authenticatorId! }))
        .credentials;
      expect(credential!.signCount).toBeGreaterThan(2);
      await a.cdp.send('WebAuthn.removeCredential', {
        authenticatorId: a.authenticatorId!,
        credentialId: credential!.credentialId,
      });
      await a.cdp.send('WebAuthn.addCredential', {
        authenticatorId: a.authenticatorId!,
        credential: { ...credential!, signCount: 1 },
      });
      const [cloned] = await verifyIn(page, await assertion(page));
      expect(cloned).toEqual({
        status: 401,
        body: expect.objectContaining({ message: expect.stringContaining('counter went backwards') }),
      });

      // Removed (the account keeps its password): the passkey no longer signs in.
      await a.cdp.send('WebAuthn.removeCredential', {
        authenticatorId: a.authenticatorId!,
        credentialId: credential!.credentialId,
      });
      await a.cdp.send('WebAuthn.addCredential', {
        authenticatorId: a.authenticatorId!,
        credential: { ...credential!, signCount: 10_000 },
      });
      expect((await step(page, 'login', email, PASSWORD)).status).toBe(200);
      const id = ((await step(page, 'list')).body!.data as unknown as Array<{ id: string }>)[0]!.id;
      expect((await step(page, 'remove', id)).status).toBe(204);
      expect((await step(page, 'remove', id)).status).toBe(404);
      const [removed] = await verifyIn(page, await assertion(page));
      expect(removed).toEqual({
        status: 401,
        body: expect.objectContaining({ message: expect.stringContaining('not registered here') }),
      });
      const removedMail = (await mail.waitFor(email, 2))[1]!;
      expect(removedMail).toMatchObject({
        subject: 'A way to sign in was removed from your account',
        text: expect.stringContaining('a passkey "Laptop"'),
      });
      const metrics = (await testApp!.services.metrics.render()).body;
      const counted = (outcome: string) =>
        Number(new RegExp(`^auth_passkey_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(metrics)?.[1]);
      expect([
        counted('success'),
        counted('added'),
        counted('removed'),
        counted('counter'),
        counted('unknown-credential'),
      ]).toEqual([3, 1, 1, 1, 1]); // signed in, the replayed answer's first use, the race's winner
      const actions = testApp!
        .logLines()
        .filter((line) => line.event === 'auth' && String(line.action).startsWith('passkey-'))
        .map((line) => `${line.action} ${line.outcome} ${line.reason ?? ''}`.trim());
      expect(testApp!.logLines()).toContainEqual(
        expect.objectContaining({ event: 'auth', action: 'owner-proof', outcome: 'refused', reason: 'wrong-password' }),
      );
      expect(actions).toEqual(
        expect.arrayContaining([
          'passkey-register success',
          'passkey-login success',
          'passkey-login refused bad-challenge',
          'passkey-login refused invalid-credential',
          'passkey-login refused counter',
          'passkey-login refused unknown-credential',
          'passkey-remove success',
        ]),
      );
      await a.context.close();
    }, 120_000);

    it('signs up with a passkey alone (no password), signs out, and signs in with it', async () => {
      const c = await openContext(browser!, base, true);
      const passkeyOnly = `passkey-only-${Date.now()}-${process.pid}@example.com`;
      const created = await step(c.page, 'signUpWithPasskey', 'Bo', passkeyOnly, 'Phone');
      expect(created).toMatchObject({ status: 201, body: { data: { email: passkeyOnly, name: 'Bo' } } });
      expect((await step(c.page, 'signInWithPasskey')).status).toBe(200);
      expect((await step(c.page, 'me')).body!.data).toMatchObject({ email: passkeyOnly });
      expect((await step(c.page, 'logout')).status).toBe(204);
      expect((await step(c.page, 'me')).status).toBe(401);
      expect((await step(c.page, 'signInWithPasskey')).status).toBe(200);
      expect((await step(c.page, 'login', passkeyOnly, PASSWORD)).status).toBe(401); // no password at all
      await c.context.close();
    }, 60_000);
  });
}
