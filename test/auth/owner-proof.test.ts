import request from 'supertest';
import { identityStore, mfaStore, passkeyStore } from '../../src/auth/stores/definitions';
import { authModule } from '../../src/modules/auth';
import { usersModule } from '../../src/modules/users';
import {
  addPasskey,
  KINDS,
  makeAccount,
  PASSWORD,
  providerSignIn,
  reauthenticate,
  refreshed,
  type Account,
  type Kind,
  type KindContext,
} from '../support/account-kinds';
import { testEngines, type StartedEngine } from '../support/engines';
import { FlowSeal } from '../../src/auth/oidc/flow-cookie';
import { OidcTestProvider, ProviderBrowser } from '../support/oidc-test-provider';
import { buildTestApp, TEST_SECRETS, type TestApp } from '../support/test-app';

// One proof of the owner for every way in (docs/authentication.md, "Proving the owner again"), over HTTP on each
// engine, for the five kinds of account: a token taken by refresh after REAUTH_MAX_AGE gets RFC 9470's 401 for
// every change to the ways in and changes nothing; after POST /api/auth/reauth with the kind's proof (a fresh
// sign-in at the provider for a provider-only account) the same change goes through; a weaker proof does not.

const PUBLIC_URL = 'https://app.example.test';
const SECRET = 'oidc-test-client-secret-0123456789';
const MAX_AGE_SECONDS = 2;
const callbackOf = (name: string) => `${PUBLIC_URL}/api/auth/oidc/${name}/callback`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const bodyOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

/** A change to the ways in, as a client makes it with a bearer; what it answers when the proof holds. */
interface Change {
  name: string;
  send(account: Account, bearer: string): Promise<request.Response>;
  /** The kinds it applies to once proven (elsewhere the gate still refuses a stale token first), and its answer. */
  applies(kind: Kind): boolean;
  status: number;
}

const passkeyIds = async (app: TestApp, account: Account) =>
  (await app.services.database.store(passkeyStore).listByUser(account.id)).map((key) => key.id);
const CHANGES = (app: () => TestApp): Change[] => [
  { name: 'add a passkey', send: (account, bearer) => addPasskey(account, bearer), applies: () => true, status: 201 },
  {
    name: 'remove a passkey',
    send: async (account, bearer) =>
      account.browser
        .delete(`/api/auth/passkeys/${(await passkeyIds(app(), account)).at(-1) ?? 'none'}`)
        .set('Authorization', bearer),
    applies: () => true, // every kind has one by now: the first change added it
    status: 204,
  },
  {
    name: 'start a provider link',
    send: (account, bearer) => account.browser.post('/api/auth/oidc/test/link').set('Authorization', bearer).send({}),
    applies: () => true,
    status: 200,
  },
  {
    name: 'enrol TOTP',
    send: (account, bearer) => account.browser.post('/api/auth/mfa/enroll').set('Authorization', bearer).send({}),
    applies: (kind) => kind !== 'password+totp',
    status: 200,
  },
  {
    name: 'new recovery codes',
    send: async (account, bearer) => {
      const renewed = await account.browser.post('/api/auth/mfa/recovery-codes').set('Authorization', bearer).send({});
      if (renewed.status === 200) account.recoveryCodes = [...(renewed.body.data.recoveryCodes as string[])]; // the old ones are void
      return renewed;
    },
    applies: (kind) => kind === 'password+totp',
    status: 200,
  },
  {
    name: 'turn TOTP off',
    send: (account, bearer) => account.browser.post('/api/auth/mfa/disable').set('Authorization', bearer).send({}),
    applies: (kind) => kind === 'password+totp',
    status: 204,
  },
  {
    name: 'set or change the password',
    send: (account, bearer) =>
      account.browser
        .post('/api/auth/password')
        .set('Authorization', bearer)
        .send({ newPassword: `a new passphrase for ${account.id}` }),
    applies: () => true,
    status: 204,
  },
  // Last: a provider-only account proves itself at the provider until it has a password.
  {
    name: 'remove a provider link',
    send: (account, bearer) => account.browser.delete('/api/auth/oidc/test/link').set('Authorization', bearer),
    applies: (kind) => kind === 'provider-only',
    status: 204,
  },
];

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`one proof of the owner for every way in, on ${target.label}`, () => {
    const provider = new OidcTestProvider(
      ['test', 'trusted'].map((name) => ({
        client_id: name,
        client_secret: SECRET,
        redirect_uris: [callbackOf(name)],
      })),
    );
    let started: StartedEngine | undefined;
    let testApp: TestApp | undefined;
    /** A second replica on the same database, whose cache of users' states serves for a minute. */
    let replica: TestApp | undefined;
    const app = () => testApp!;
    const context: KindContext = { app, publicUrl: PUBLIC_URL, callbackOf };

    beforeAll(async () => {
      started = await target.start();
      const issuer = await provider.start();
      const oidc = (name: string, linkByEmail: boolean) => ({
        [`OIDC_${name}_ISSUER`]: issuer,
        [`OIDC_${name}_CLIENT_ID`]: name.toLowerCase(),
        [`OIDC_${name}_CLIENT_SECRET`]: SECRET,
        [`OIDC_${name}_REGISTRATION`]: 'true',
        [`OIDC_${name}_LINK_BY_EMAIL`]: String(linkByEmail),
      });
      const env = {
        DATABASE_URL: started.url,
        USER_STORE: 'database',
        PUBLIC_URL,
        PASSKEYS: 'true',
        AUTH_REGISTRATION: 'true',
        AUTH_RATE_LIMIT_MAX: '100000',
        MFA_ENCRYPTION_KEY: 'test-mfa-sealing-key-0123456789abcdef0123456789',
        REAUTH_MAX_AGE: `${MAX_AGE_SECONDS}s`,
        OIDC_PROVIDERS: 'test,trusted',
        ...oidc('TEST', false),
        ...oidc('TRUSTED', true),
      };
      testApp = await buildTestApp({ env, modules: [authModule, usersModule] });
      // An in-memory SQLite database is one process's: there is no second replica of it.
      if (target.engine !== 'sqlite')
        replica = await buildTestApp({
          env: { ...env, AUTH_STATE_CACHE_TTL: '60s' },
          modules: [authModule, usersModule],
        });
    }, 240_000);
    afterAll(async () => {
      await replica?.close();
      await testApp?.close();
      await provider.stop();
      await started?.stop();
    }, 60_000);

    /** What signs the account in, as stored: a stale token's refused change must leave all of it as it was. */
    const waysIn = async (account: Account) => {
      const { database, users } = app().services;
      const user = await users.findById(account.id);
      const mfa = await database.store(mfaStore).find(account.id);
      return {
        passwordHash: user?.passwordHash,
        mfa: mfa && {
          confirmed: mfa.confirmed,
          secret: mfa.secret,
          codes: await database.store(mfaStore).recoveryCodesLeft(account.id),
        },
        passkeys: await passkeyIds(app(), account),
        identities: (await database.store(identityStore).listByUser(account.id)).map((identity) => identity.subject),
      };
    };

    it("refuses every change with a stale token (RFC 9470, changing nothing), then lets each through after the kind's proof", async () => {
      const made = await Promise.all(KINDS.map((kind) => makeAccount(context, kind)));
      await sleep((MAX_AGE_SECONDS + 1) * 1000);
      for (const { account, bearer: signedIn } of made) {
        const stale = await refreshed(account);
        // Refreshing is not proving: the new token keeps the sign-in's auth_time and amr.
        const [first, again] = [bodyOf(signedIn.slice(7)), bodyOf(stale.slice(7))];
        expect([again.auth_time, again.amr]).toEqual([first.auth_time, first.amr]);
        const before = await waysIn(account);
        for (const change of CHANGES(app)) {
          const refused = await change.send(account, stale);
          expect([account.kind, change.name, refused.status]).toEqual([account.kind, change.name, 401]);
          expect(refused.headers['www-authenticate']).toBe(
            `Bearer error="insufficient_user_authentication", error_description="A recent proof of the account's owner is needed", max_age=${MAX_AGE_SECONDS}`,
          );
          expect(refused.body.message).toMatch(/\[proofs: [a-z:+, -]+\]$/);
        }
        expect(await waysIn(account)).toEqual(before);

        for (const change of CHANGES(app).filter((each) => each.applies(account.kind))) {
          const bearer = await reauthenticate(context, account, await refreshed(account));
          const done = await change.send(account, bearer);
          expect([account.kind, change.name, done.status]).toEqual([account.kind, change.name, change.status]);
        }
      }
    }, 180_000);

    it('takes no weaker proof: a password alone for a TOTP account, at reauth and in the body', async () => {
      const { account } = await makeAccount(context, 'password+totp');
      await sleep((MAX_AGE_SECONDS + 1) * 1000);
      const stale = await refreshed(account);
      const reauth = await account.browser
        .post('/api/auth/reauth')
        .set('Authorization', stale)
        .send({ password: PASSWORD })
        .expect(401);
      expect(reauth.headers['www-authenticate']).toMatch(/insufficient_user_authentication/);
      expect(reauth.body.message).toMatch(/\[proofs: password\+code, password\+recovery-code\]$/);
      // The password with a live token added a passkey without the code: a passkey then signed in without it.
      await account.browser
        .post('/api/auth/passkeys/register/options')
        .set('Authorization', stale)
        .send({ password: PASSWORD })
        .expect(401);
      // A code alone is not enough, so it is not even tried: it can neither be guessed at nor fill the owner's count.
      for (let i = 0; i < 6; i += 1) {
        const alone = await account.browser
          .post('/api/auth/reauth')
          .set('Authorization', stale)
          .send({ code: '123456' })
          .expect(401);
        expect(alone.headers['www-authenticate']).toMatch(/insufficient_user_authentication/);
      }
      await account.browser
        .post('/api/auth/reauth')
        .set('Authorization', stale)
        .send({ password: 'not the password', code: '123456' })
        .expect(401);
      const proven = await account.browser
        .post('/api/auth/reauth')
        .set('Authorization', stale)
        .send({ password: PASSWORD, recoveryCode: account.recoveryCodes.shift() })
        .expect(200);
      expect(bodyOf(proven.body.data.accessToken as string)).toMatchObject({
        amr: ['pwd', 'otp'],
        sv: bodyOf(stale.slice(7)).sv,
      });
      await account.browser
        .post('/api/auth/passkeys/register/options')
        .set('Authorization', `Bearer ${proven.body.data.accessToken as string}`)
        .send({})
        .expect(200);
    }, 60_000);

    it('lets a passkey-only account add its second passkey, after a passkey proves it again', async () => {
      const { account } = await makeAccount(context, 'passkey-only');
      await sleep((MAX_AGE_SECONDS + 1) * 1000);
      const stale = await refreshed(account);
      expect((await addPasskey(account, stale)).status).toBe(401);
      const bearer = await reauthenticate(context, account, stale);
      expect(bodyOf(bearer.slice(7)).amr).toEqual(['hwk', 'user', 'mfa']);
      expect((await addPasskey(account, bearer)).status).toBe(201);
      expect(await passkeyIds(app(), account)).toHaveLength(2);
    }, 60_000);

    it("ends the account's other sessions when a passkey goes (a lost device's among them); the caller goes on", async () => {
      const { account, bearer } = await makeAccount(context, 'password+passkey');
      const lost = await makeAccountSession(account);
      const removed = await account.browser
        .delete(`/api/auth/passkeys/${(await passkeyIds(app(), account))[0]}`)
        .set('Authorization', bearer)
        .expect(204);
      expect(removed.headers['set-cookie']).toEqual([expect.stringMatching(/^refreshToken=[^;]+; Path=\/api\/auth;/)]);
      await lost.post('/api/auth/refresh').expect(401);
      await account.browser.get('/api/users/me').set('Authorization', bearer).expect(401);
      await account.browser
        .get('/api/users/me')
        .set('Authorization', await refreshed(account))
        .expect(200);
    }, 60_000);

    it('never links by address into an account that has a passkey, even with LINK_BY_EMAIL', async () => {
      const { account } = await makeAccount(context, 'password+passkey');
      await app().services.users.markEmailVerified(account.id); // as its owner would have, by the mailed link
      const refused = await providerSignIn(context, account, false, 'trusted');
      expect(refused.status).toBe(409);
      expect(refused.body.message).toMatch(/^An account uses this address: sign in to it the way it signs in/);
      expect(await app().services.database.store(identityStore).listByUser(account.id)).toEqual([]);
      const { account: plain } = await makeAccount(context, 'password'); // a password alone: the trusted provider links it
      await app().services.users.markEmailVerified(plain.id);
      const linked = await providerSignIn(context, plain, false, 'trusted');
      expect([linked.status, linked.body.message]).toEqual([302, undefined]);
    }, 60_000);

    (target.engine === 'sqlite' ? it.skip : it)(
      'reads the session from the store for a change: after logout-all on one replica, the other refuses at once',
      async () => {
        const { account, bearer } = await makeAccount(context, 'password');
        const other = request(replica!.app.callback());
        await other.get('/api/users/me').set('Authorization', bearer).expect(200); // its cache now holds the user, for a minute
        await account.browser.post('/api/auth/logout-all').set('Authorization', bearer).expect(204);
        await other.get('/api/users/me').set('Authorization', bearer).expect(200); // a read still passes there, within AUTH_STATE_CACHE_TTL
        for (const change of [
          other.post('/api/auth/passkeys/register/options').set('Authorization', bearer).send({ password: PASSWORD }),
          other.post('/api/auth/oidc/test/link').set('Authorization', bearer).send({ password: PASSWORD }),
          other.post('/api/auth/mfa/enroll').set('Authorization', bearer).send({ password: PASSWORD }),
          other.post('/api/auth/reauth').set('Authorization', bearer).send({ password: PASSWORD }),
        ]) {
          const refused = await change;
          expect([refused.status, refused.body.message]).toEqual([401, 'This session has ended: log in again']);
        }
        expect(await waysIn(account)).toMatchObject({ mfa: null, passkeys: [] });
      },
      60_000,
    );

    it('refuses a fresh sign-in whose ID token says the end-user authenticated before the browser was sent (stale-sign-in)', async () => {
      const { account } = await makeAccount(context, 'provider-only');
      const start = await request(app().app.callback())
        .get('/api/auth/oidc/test/login')
        .query({ fresh: true })
        .expect(302);
      const sealed = /^oidcFlow=([^;]+)/.exec(
        ([] as string[]).concat(start.headers['set-cookie'] ?? []).find((line) => line.startsWith('oidcFlow='))!,
      )![1]!;
      // The same flow, as if the browser had left an hour later than the provider's sign-in: its auth_time is then too old.
      const seal = new FlowSeal(TEST_SECRETS.REFRESH_TOKEN_SECRET);
      const flow = seal.open(sealed)!;
      const later = seal.seal({ ...flow, startedAt: flow.startedAt + 3600 });
      const back = await new ProviderBrowser(callbackOf('test')).signIn(start.headers.location as string, {
        account: account.providerAccount,
      });
      const refused = await request(app().app.callback())
        .get(`/api/auth/oidc/test/callback${back.search}`)
        .set('Cookie', `oidcFlow=${later}`)
        .expect(401);
      expect(refused.body.message).toMatch(/did not ask you to sign in again/);
      expect(
        ([] as string[]).concat(refused.headers['set-cookie'] ?? []).some((line) => line.startsWith('refreshToken=')),
      ).toBe(false);
    }, 60_000);

    /** Another browser signed in to the account by password: a second session. */
    const makeAccountSession = async (account: Account) => {
      const other = request.agent(app().app.callback());
      await other.post('/api/auth/login').send({ email: account.email, password: PASSWORD }).expect(200);
      return other;
    };
  });
}
