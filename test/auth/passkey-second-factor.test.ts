import request from 'supertest';
import { SoftwareAuthenticator } from '../support/software-authenticator';
import { testEngines } from '../support/engines';
import { usePasskeyApp } from '../support/passkey-app';
import { codeAt } from '../support/totp-codes';

// A passkey instead of the TOTP code, over HTTP with real ceremonies (an authenticator in memory): the mfaToken
// of the password step signs in once, whichever factor answers it. After a passkey answered it, the same token
// is refused by the code's verify and by new passkey options; a failed passkey answer gives it back.

const ORIGIN = 'http://localhost:3000';
const PASSWORD = 'correct horse battery staple 42';
const MFA_KEY = 'test-mfa-sealing-key-0123456789abcdef0123456789';
const BAD_TOKEN = 'Invalid, expired or used mfaToken: log in again';

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`a passkey as the second factor on ${target.label}`, () => {
    const testApp = usePasskeyApp(target, ORIGIN, { MFA_ENCRYPTION_KEY: MFA_KEY });

    it('spends the mfaToken when a passkey answers it: the code and new options are refused with it afterwards', async () => {
      const browser = request.agent(testApp().app.callback()); // keeps the passkeyFlow cookie, as a browser does
      const authenticator = new SoftwareAuthenticator(ORIGIN);
      const email = `second-factor-${Date.now()}@example.com`;
      await browser.post('/api/auth/register').send({ name: 'Ada', email, password: PASSWORD }).expect(201);
      const bearer = `Bearer ${(await browser.post('/api/auth/login').send({ email, password: PASSWORD }).expect(200)).body.data.accessToken}`;
      const options = await browser
        .post('/api/auth/passkeys/register/options')
        .set('Authorization', bearer)
        .send({ password: PASSWORD })
        .expect(200);
      await browser
        .post('/api/auth/passkeys/register/verify')
        .set('Authorization', bearer)
        .send({ credential: authenticator.create(options.body.data), name: 'Laptop' })
        .expect(201);
      const enrolment = await browser
        .post('/api/auth/mfa/enroll')
        .set('Authorization', bearer)
        .send({ password: PASSWORD })
        .expect(200);
      const secret = enrolment.body.data.secret as string;
      await browser
        .post('/api/auth/mfa/confirm')
        .set('Authorization', bearer)
        .send({ code: await codeAt(secret) })
        .expect(200);

      const step = await browser.post('/api/auth/login').send({ email, password: PASSWORD }).expect(200);
      const mfaToken = step.body.data.mfaToken as string;
      const first = await browser.post('/api/auth/passkeys/login/options').send({ mfaToken }).expect(200);
      const answer = authenticator.get(first.body.data);
      // Without its mfaToken, the second factor's challenge answers nothing (and the token stays unspent).
      const bare = await browser.post('/api/auth/passkeys/login/verify').send({ credential: answer }).expect(401);
      expect(bare.body.message).toMatch(/started in another browser/);
      // A passkey answer that does not verify gives the token back: it still works.
      const second = await browser.post('/api/auth/passkeys/login/options').send({ mfaToken }).expect(200);
      const forged = authenticator.get(second.body.data) as { response: Record<string, string> };
      const signature = Buffer.from(forged.response.signature!, 'base64url');
      signature[signature.length - 1]! ^= 0xff;
      const failed = await browser
        .post('/api/auth/passkeys/login/verify')
        .send({
          credential: { ...forged, response: { ...forged.response, signature: signature.toString('base64url') } },
          mfaToken,
        })
        .expect(401);
      expect(failed.body.message).toMatch(/could not be verified/);
      const signedIn = await browser
        .post('/api/auth/passkeys/login/verify')
        .send({ credential: answer, mfaToken })
        .expect(200);
      expect(signedIn.body.data).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 900 });

      // The token is spent: the code (right, unused) and new passkey options are refused with it.
      const code = await browser
        .post('/api/auth/mfa/verify')
        .send({ mfaToken, code: await codeAt(secret, 1) })
        .expect(401);
      expect(code.body.message).toBe(BAD_TOKEN);
      expect((await browser.post('/api/auth/passkeys/login/options').send({ mfaToken }).expect(401)).body.message).toBe(
        BAD_TOKEN,
      );
      // And a second passkey answer with it (options asked before the first success) is refused for the token.
      const late = await browser
        .post('/api/auth/passkeys/login/options')
        .send({
          mfaToken: (await browser.post('/api/auth/login').send({ email, password: PASSWORD })).body.data.mfaToken,
        })
        .expect(200);
      const replay = await browser
        .post('/api/auth/passkeys/login/verify')
        .send({ credential: authenticator.get(late.body.data), mfaToken })
        .expect(401);
      expect(replay.body.message).toBe(BAD_TOKEN);
      const refused = testApp()
        .logLines()
        .filter((line) => line.action === 'mfa-verify' && line.outcome === 'refused')
        .map((line) => line.reason);
      expect(refused).toEqual(['spent-token', 'spent-token']);
    });
  });
}
