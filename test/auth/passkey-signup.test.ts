import request from 'supertest';
import { NO_PASSWORD } from '../../src/auth/passwords';
import { passkeyStore } from '../../src/auth/stores/definitions';
import { setCookies } from '../support/auth-helpers';
import { testEngines } from '../support/engines';
import { usePasskeyApp } from '../support/passkey-app';
import { tokenIn } from '../support/mail-catcher';
import { MAIL_PUBLIC_URL, useMailApp } from '../support/mail-app';
import { SoftwareAuthenticator } from '../support/software-authenticator';

// An account made with a passkey alone, over HTTP with real ceremonies (an authenticator in memory), on each
// engine: it has no password at all, answers as POST /api/auth/register does (201 and 409 without email
// verification; 202 alike for a new and a taken address with it), signs in with the passkey and not with a
// password, keeps its last way in, and can set a password by a reset link.

const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'correct horse battery staple 42';
type Agent = ReturnType<typeof request.agent>;

/** Options, the authenticator's credential, and the verify, in one browser (the agent keeps passkeyFlow). */
async function signUp(
  browser: Agent,
  authenticator: SoftwareAuthenticator,
  email: string,
  name = 'Ada',
  verifyAs = { email, name },
) {
  const options = await browser.post('/api/auth/passkeys/signup/options').send({ email, name });
  if (options.status !== 200) return options;
  return browser
    .post('/api/auth/passkeys/signup/verify')
    .send({ ...verifyAs, credential: authenticator.create(options.body.data), passkeyName: 'Phone' });
}

/** A usernameless sign-in with the authenticator's passkey: the answer of login/verify. */
async function signIn(browser: Agent, authenticator: SoftwareAuthenticator) {
  const options = await browser.post('/api/auth/passkeys/login/options').expect(200);
  return browser.post('/api/auth/passkeys/login/verify').send({ credential: authenticator.get(options.body.data) });
}

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(
    `sign-up with a passkey alone, without email verification, on ${target.label}`,
    () => {
      const testApp = usePasskeyApp(target, ORIGIN);

      it('makes a user with no password and the passkey; they sign in with it, never with a password, and keep it as their last way in', async () => {
        const browser = request.agent(testApp().app.callback());
        const authenticator = new SoftwareAuthenticator(ORIGIN);
        const email = `signup-${Date.now()}@example.com`;
        const options = await browser
          .post('/api/auth/passkeys/signup/options')
          .send({ email: email.toUpperCase(), name: ' Ada ' })
          .expect(200);
        expect(options.body.data).toMatchObject({
          user: { name: email, displayName: 'Ada' },
          excludeCredentials: [],
          authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
        });
        expect(setCookies(options).some((cookie) => cookie.startsWith('passkeyFlow='))).toBe(true);
        const credential = authenticator.create(options.body.data);
        // The answer is bound to the address and name it was asked for, and to this browser.
        const other = await browser
          .post('/api/auth/passkeys/signup/verify')
          .send({ email: `x${email}`, name: 'Ada', credential })
          .expect(422);
        expect(other.body.errors).toEqual([
          { field: 'credential', message: expect.stringContaining('this email and name') },
        ]);
        await request(testApp().app.callback())
          .post('/api/auth/passkeys/signup/verify')
          .send({ email, name: 'Ada', credential })
          .expect(422);
        const created = await browser
          .post('/api/auth/passkeys/signup/verify')
          .send({ email, name: 'Ada', credential, passkeyName: 'Phone' })
          .expect(201);
        expect(created.body.data).toEqual({ id: expect.any(String), email, role: 'user', name: 'Ada' });
        expect(created.headers.location).toBe(`/api/users/${created.body.data.id}`);
        expect(setCookies(created).filter((cookie) => cookie.startsWith('refreshToken='))).toEqual([]); // no session, as registration
        await browser.post('/api/auth/passkeys/signup/verify').send({ email, name: 'Ada', credential }).expect(422); // used up

        const id = created.body.data.id as string;
        const stored = await testApp().services.users.findById(id);
        expect(stored).toMatchObject({ email, passwordHash: NO_PASSWORD, emailVerified: false }); // no password at all, not a random one
        expect(Buffer.from(authenticator.credentials[0]!.userHandle, 'base64url').toString()).toBe(id); // the user handle is the account
        expect(await testApp().services.database.store(passkeyStore).listByUser(id)).toEqual([
          expect.objectContaining({ name: 'Phone', transports: ['internal'] }),
        ]);

        const signedIn = await signIn(browser, authenticator);
        expect(signedIn.status).toBe(200);
        const bearer = `Bearer ${signedIn.body.data.accessToken}`;
        expect((await browser.get('/api/users/me').set('Authorization', bearer).expect(200)).body.data).toMatchObject({
          id,
          email,
        });
        for (const password of [PASSWORD, NO_PASSWORD])
          await browser.post('/api/auth/login').send({ email, password }).expect(401);
        const [passkey] = (await browser.get('/api/auth/passkeys').set('Authorization', bearer).expect(200)).body.data;
        expect(
          (await browser.delete(`/api/auth/passkeys/${passkey.id}`).set('Authorization', bearer).expect(409)).body
            .message,
        ).toMatch(/last way to sign in/);

        // A taken address is told at the options, before the authenticator makes a credential for nothing.
        expect(
          (await browser.post('/api/auth/passkeys/signup/options').send({ email, name: 'Eve' }).expect(409)).body
            .message,
        ).toBe('This email is already registered');
        expect(
          testApp()
            .logLines()
            .filter((line) => line.action === 'register')
            .map((line) => line.outcome),
        ).toEqual(['success', 'taken']);
      });

      it('refuses what is not a sign-up: a wrong body (422), a credential registered already (409)', async () => {
        const browser = request.agent(testApp().app.callback());
        await browser
          .post('/api/auth/passkeys/signup/options')
          .send({ email: 'not an address', name: 'Ada' })
          .expect(422);
        await browser.post('/api/auth/passkeys/signup/options').send({ email: 'a@example.com' }).expect(422);
        await browser
          .post('/api/auth/passkeys/signup/verify')
          .send({ email: 'a@example.com', name: 'Ada', credential: { id: 'x' } })
          .expect(422);
        const authenticator = new SoftwareAuthenticator(ORIGIN);
        const first = await signUp(browser, authenticator, `one-${Date.now()}@example.com`);
        expect(first.status).toBe(201);
        // The same credential (the same key and id) answering a second sign-up: refused, and nothing is made.
        const email = `two-${Date.now()}@example.com`;
        const options = await browser
          .post('/api/auth/passkeys/signup/options')
          .send({ email, name: 'Ada' })
          .expect(200);
        const reused = authenticator.create(options.body.data, authenticator.credentials[0]);
        const refused = await browser
          .post('/api/auth/passkeys/signup/verify')
          .send({ email, name: 'Ada', credential: reused })
          .expect(409);
        expect(refused.body.message).toBe('This passkey is registered already');
        expect(await testApp().services.users.findByEmail(email)).toBeNull();
      });
    },
  );

  (target.skipReason ? describe.skip : describe)(
    `sign-up with a passkey alone, with email verification, on ${target.label}`,
    () => {
      const { app, http, mail, register } = useMailApp(target, { PASSKEYS: 'true', EMAIL_VERIFICATION: 'optional' });

      it('answers 202 alike for a new and a taken address; the owner of the taken one is mailed and nothing is made; a reset link gives a password', async () => {
        const browser = request.agent(app().app.callback());
        const authenticator = new SoftwareAuthenticator(MAIL_PUBLIC_URL);
        const email = `verified-${Date.now()}@example.com`;
        const made = await signUp(browser, authenticator, email);
        expect(made.status).toBe(202);
        const [link] = await mail.waitFor(email);
        expect(link!.subject).toBe('Confirm your email address');

        const owner = await register();
        const intruder = new SoftwareAuthenticator(MAIL_PUBLIC_URL);
        const taken = await signUp(request.agent(app().app.callback()), intruder, owner);
        expect({ status: taken.status, body: taken.body }).toEqual({ status: made.status, body: made.body });
        const [, notice] = await mail.waitFor(owner, 2);
        expect(notice!.subject).toBe('Someone tried to register with your address');
        expect(
          await app().services.database.store(passkeyStore).findByCredentialId(intruder.credentials[0]!.id),
        ).toBeNull();

        // The passkey signs in; a password can be set by the reset link, and then the passkey may go.
        const signedIn = await signIn(browser, authenticator);
        expect(signedIn.status).toBe(200);
        await http().post('/api/auth/forgot-password').send({ email }).expect(202);
        const [, resetMail] = await mail.waitFor(email, 2);
        await http()
          .post('/api/auth/reset-password')
          .send({ token: tokenIn(resetMail!.text), password: PASSWORD })
          .expect(204);
        const login = await http().post('/api/auth/login').send({ email, password: PASSWORD }).expect(200);
        const bearer = `Bearer ${login.body.data.accessToken}`;
        const [passkey] = (await http().get('/api/auth/passkeys').set('Authorization', bearer).expect(200)).body.data;
        await http().delete(`/api/auth/passkeys/${passkey.id}`).set('Authorization', bearer).expect(204);
      });
    },
  );
}
