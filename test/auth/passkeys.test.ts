import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { PASSKEY_AMR, provenNow } from '../../src/auth/owner-proof/proofs';
import { NO_PASSWORD } from '../../src/auth/passwords';
import { passkeyStore } from '../../src/auth/stores/definitions';
import type { PasskeyStore } from '../../src/auth/stores/passkey-store';
import { setCookies } from '../support/auth-helpers';
import { testEngines } from '../support/engines';
import { usePasskeyApp } from '../support/passkey-app';
import { codeAt } from '../support/totp-codes';

// The passkey routes over HTTP on every engine, where no browser is needed (the ceremonies themselves run in
// Chromium: passkeys-browser.test.ts): what adding one asks for, the options' shape and their binding cookie,
// answers to no options, the second factor's options, the last way in, and a deleted user's passkeys.

const PUBLIC_URL = 'http://localhost:3000';
const PASSWORD = 'correct horse battery staple 42';
const MFA_KEY = 'test-mfa-sealing-key-0123456789abcdef0123456789';
const flowCookie = (res: request.Response) => setCookies(res).find((cookie) => cookie.startsWith('passkeyFlow='));
/** A credential of the right shape that answers nothing issued here. */
const forgedAssertion = () => {
  const clientDataJSON = Buffer.from(
    JSON.stringify({ type: 'webauthn.get', challenge: randomBytes(32).toString('base64url'), origin: PUBLIC_URL }),
  ).toString('base64url');
  const id = randomBytes(16).toString('base64url');
  return {
    id,
    rawId: id,
    type: 'public-key',
    clientExtensionResults: {},
    response: { clientDataJSON, authenticatorData: 'AAAA', signature: 'AAAA' },
  };
};

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`passkey routes on ${target.label}`, () => {
    const testApp = usePasskeyApp(target, PUBLIC_URL, { MFA_ENCRYPTION_KEY: MFA_KEY });
    const passkeys = (): PasskeyStore => testApp().services.database.store(passkeyStore);
    const http = () => request(testApp().app.callback());
    let registered = 0;
    /** A registered user and a bearer from a password login. */
    const newUser = async () => {
      registered += 1;
      const email = `passkeys-${registered}-${Date.now()}@example.com`;
      const created = await http()
        .post('/api/auth/register')
        .send({ name: 'Ada', email, password: PASSWORD })
        .expect(201);
      const login = await http().post('/api/auth/login').send({ email, password: PASSWORD }).expect(200);
      return { id: created.body.data.id as string, email, bearer: `Bearer ${login.body.data.accessToken}` };
    };
    const storedPasskey = (userId: string, counter = 0) =>
      passkeys().add({
        userId,
        credentialId: randomBytes(32),
        publicKey: randomBytes(77),
        counter,
        transports: ['usb'],
        name: 'Key',
      });
    /** A bearer for the user's current session whose owner last proved it an hour ago (`amr`: a password). */
    const staleBearer = async (userId: string) => {
      const user = await testApp().services.users.findById(userId);
      return `Bearer ${testApp().services.tokens.signAccessToken({ ...user!, proof: { authTime: Math.floor(Date.now() / 1000) - 3600, amr: ['pwd'] } })}`;
    };
    /** A bearer of a passkey sign-in just now, at the user's current session version. */
    const passkeyBearer = async (userId: string) => {
      const user = await testApp().services.users.findById(userId);
      return `Bearer ${testApp().services.tokens.signAccessToken({ ...user!, proof: provenNow(...PASSKEY_AMR) })}`;
    };
    /** The user's password taken away (as for a user a passkey made), and a bearer of a passkey sign-in just now. */
    const withoutPassword = async (userId: string) => {
      await testApp().services.users.changePassword(userId, NO_PASSWORD);
      return passkeyBearer(userId);
    };

    it('asks for a recent proof before the options: a stale token alone, a wrong password, then the password; options for a discoverable, user-verified credential', async () => {
      const { id, bearer } = await newUser();
      await http().post('/api/auth/passkeys/register/options').send({ password: PASSWORD }).expect(401); // no access token
      const stale = await staleBearer(id);
      const bare = await http()
        .post('/api/auth/passkeys/register/options')
        .set('Authorization', stale)
        .send({})
        .expect(401);
      expect(bare.headers['www-authenticate']).toBe(
        `Bearer error="insufficient_user_authentication", error_description="A recent proof of the account's owner is needed", max_age=300`,
      );
      expect(bare.body.message).toMatch(/\[proofs: password\]$/);
      await http()
        .post('/api/auth/passkeys/register/options')
        .set('Authorization', stale)
        .send({ password: 'not the password at all' })
        .expect(401);
      await http()
        .post('/api/auth/passkeys/register/options')
        .set('Authorization', stale)
        .send({ password: PASSWORD })
        .expect(200);
      const options = await http()
        .post('/api/auth/passkeys/register/options')
        .set('Authorization', bearer)
        .send({})
        .expect(200); // a sign-in is a recent proof
      expect(options.body.data).toMatchObject({
        rp: { id: 'localhost', name: 'localhost' },
        challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        attestation: 'none',
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
        excludeCredentials: [],
      });
      expect(flowCookie(options)).toMatch(
        /^passkeyFlow=[A-Za-z0-9_-]{43}; Path=\/api\/auth\/passkeys; Max-Age=300; HttpOnly; SameSite=Strict$/,
      );
      // An answer to no options of this browser adds nothing (the shape is right; the challenge is nobody's).
      const verify = await http()
        .post('/api/auth/passkeys/register/verify')
        .set('Authorization', bearer)
        .set('Cookie', flowCookie(options)!.split(';')[0]!)
        .send({
          credential: {
            ...forgedAssertion(),
            response: { clientDataJSON: forgedAssertion().response.clientDataJSON, attestationObject: 'AAAA' },
          },
          name: 'Laptop',
        })
        .expect(422);
      expect(verify.body.errors[0].field).toBe('credential');
    });

    it('signs in usernameless or, with an mfaToken, with that user’s passkeys only; an answer to nothing is a 401', async () => {
      const anyone = await http().post('/api/auth/passkeys/login/options').expect(200);
      expect(anyone.body.data).toMatchObject({
        rpId: 'localhost',
        userVerification: 'required',
        challenge: expect.any(String),
      });
      expect(anyone.body.data.allowCredentials ?? []).toEqual([]);
      expect(flowCookie(anyone)).toBeDefined();
      await http().post('/api/auth/passkeys/login/options').send({ mfaToken: 'not-a-token' }).expect(401);
      const forged = await http()
        .post('/api/auth/passkeys/login/verify')
        .set('Cookie', flowCookie(anyone)!.split(';')[0]!)
        .send({ credential: forgedAssertion() })
        .expect(401);
      expect(forged.body.message).toMatch(/started in another browser/);
      expect(setCookies(forged)).toEqual([]); // no session

      const { id, email, bearer } = await newUser();
      const enrolment = await http()
        .post('/api/auth/mfa/enroll')
        .set('Authorization', bearer)
        .send({ password: PASSWORD })
        .expect(200);
      await http()
        .post('/api/auth/mfa/confirm')
        .set('Authorization', bearer)
        .send({ code: await codeAt(enrolment.body.data.secret) })
        .expect(200);
      const key = await storedPasskey(id);
      await storedPasskey((await newUser()).id); // someone else's: never offered
      const login = await http().post('/api/auth/login').send({ email, password: PASSWORD }).expect(200);
      const mfaToken = login.body.data.mfaToken as string;
      const second = await http().post('/api/auth/passkeys/login/options').send({ mfaToken }).expect(200);
      expect(second.body.data.allowCredentials).toEqual([
        { id: key.credentialId.toString('base64url'), type: 'public-key', transports: ['usb'] },
      ]);
    });

    it('keeps the last way in: a user without a password keeps their last passkey, and a deleted user’s go', async () => {
      const { id } = await newUser();
      const bearer = await withoutPassword(id);
      const [first, second] = [await storedPasskey(id), await storedPasskey(id, 3)];
      const listed = await http().get('/api/auth/passkeys').set('Authorization', bearer).expect(200);
      expect(listed.body.data).toEqual(
        [first, second].map((key) => ({
          id: key.id,
          name: 'Key',
          transports: ['usb'],
          createdAt: key.createdAt.toISOString(),
          lastUsedAt: null,
        })),
      );
      const removed = await http().delete(`/api/auth/passkeys/${first.id}`).set('Authorization', bearer).expect(204);
      await http().delete(`/api/auth/passkeys/${second.id}`).set('Authorization', bearer).expect(401); // every other session ended, this token's too
      const refreshed = await http()
        .post('/api/auth/refresh')
        .set(
          'Cookie',
          setCookies(removed)
            .find((cookie) => cookie.startsWith('refreshToken='))!
            .split(';')[0]!,
        )
        .expect(200);
      // The caller's session goes on, but its proof was a passkey's, perhaps the one removed: the next change asks again.
      await http()
        .delete(`/api/auth/passkeys/${second.id}`)
        .set('Authorization', `Bearer ${refreshed.body.data.accessToken}`)
        .expect(401);
      const next = await passkeyBearer(id);
      const last = await http().delete(`/api/auth/passkeys/${second.id}`).set('Authorization', next).expect(409);
      expect(last.body.message).toMatch(/last way to sign in/);
      await http().delete(`/api/auth/passkeys/${first.id}`).set('Authorization', next).expect(404);
      const other = await newUser();
      await http().delete(`/api/auth/passkeys/${second.id}`).set('Authorization', other.bearer).expect(404); // not theirs
      const admin = await testApp().signIn('admin');
      await http().delete(`/api/users/${id}`).set('Authorization', admin.authorization).expect(204);
      expect(await passkeys().listByUser(id)).toEqual([]);
    });

    it('serves the development page and its scripts (outside production)', async () => {
      const page = await http().get('/dev/passkeys').expect(200);
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
      expect(page.text).toContain('/dev/passkeys/simplewebauthn-browser.js');
      const library = await http().get('/dev/passkeys/simplewebauthn-browser.js').expect(200);
      expect(library.text).toContain('startRegistration');
      await http().get('/dev/passkeys/page.js').expect(200);
      await http().get('/dev/passkeys/other.js').expect(404);
    });
  });
}
