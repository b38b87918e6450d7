import { codeAt, wrongCodes } from '../support/totp-codes';
import type request from 'supertest';
import { SecretBox } from '../../src/auth/mfa/secret-box';
import { mfaStore } from '../../src/auth/stores/definitions';
import { testEngines } from '../support/engines';
import { MAIL_TEST_PASSWORD as PASSWORD, useMailApp } from '../support/mail-app';

// Two-factor login (TOTP) on every engine here: enrol (with the password) → confirm (other sessions end, a
// notice is mailed) → login needs a code → wrong, replayed and expired codes refused → a recovery code works
// once; an mfaToken signs in once; codes throttled like passwords; an mfaToken dies with the sessions it was
// issued under; disabling takes the password and a code; nothing secret in the clear. Enrolment without the
// password (a stolen access token) in test/auth/two-factor-enrolment.test.ts.

const MFA_KEY = 'test-mfa-sealing-key-0123456789abcdef0123456789';
const cookiesOf = (res: request.Response) => ([] as string[]).concat(res.headers['set-cookie'] ?? []);
const refreshCookieOf = (res: request.Response) =>
  cookiesOf(res)
    .find((cookie) => cookie.startsWith('refreshToken='))!
    .split(';')[0]!;
/** The code of the time step `offsetSteps` from now. */

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`two-factor login on ${target.label}`, () => {
    const { app, http, mail, register } = useMailApp(target, {
      MFA_ENCRYPTION_KEY: MFA_KEY,
      MFA_ISSUER: 'Koa API Test',
      LOGIN_THROTTLE_FAILURES: '5',
    });
    const login = (email: string) => http().post('/api/auth/login').send({ email, password: PASSWORD });
    const verify = (mfaToken: string, factor: { code: string } | { recoveryCode: string }) =>
      http()
        .post('/api/auth/mfa/verify')
        .send({ mfaToken, ...factor });

    /**
     * A registered user with two-factor login confirmed (at the current time step): their secret, recovery
     * codes and a bearer of the session the confirmation gave the caller (it ended every earlier one).
     */
    const enrolled = async () => {
      const email = await register();
      const bearer = `Bearer ${(await login(email).expect(200)).body.data.accessToken}`;
      const enrolment = await http()
        .post('/api/auth/mfa/enroll')
        .set('Authorization', bearer)
        .send({ password: PASSWORD })
        .expect(200);
      const { secret, otpauthUrl } = enrolment.body.data as { secret: string; otpauthUrl: string };
      expect(otpauthUrl).toBe(
        `otpauth://totp/Koa%20API%20Test:${encodeURIComponent(email)}?secret=${secret}&issuer=Koa%20API%20Test`,
      );
      const confirmed = await http()
        .post('/api/auth/mfa/confirm')
        .set('Authorization', bearer)
        .send({ code: await codeAt(secret) })
        .expect(200);
      const refreshed = await http().post('/api/auth/refresh').set('Cookie', refreshCookieOf(confirmed)).expect(200);
      return {
        email,
        secret,
        bearer: `Bearer ${refreshed.body.data.accessToken}`,
        recoveryCodes: confirmed.body.data.recoveryCodes as string[],
      };
    };

    it('enrol → login asks for a code → a right one signs in; wrong, replayed and expired ones are refused', async () => {
      const { email, secret, bearer, recoveryCodes } = await enrolled();
      expect(recoveryCodes).toHaveLength(10);
      expect(new Set(recoveryCodes).size).toBe(10);
      await http().post('/api/auth/mfa/enroll').set('Authorization', bearer).send({ password: PASSWORD }).expect(409); // on already

      const challenged = await login(email).expect(200);
      expect(challenged.body.data).toEqual({ mfaRequired: true, mfaToken: expect.any(String) });
      expect(challenged.headers['set-cookie']).toBeUndefined(); // no session before the second factor
      const { mfaToken } = challenged.body.data as { mfaToken: string };
      await http().get('/api/users/me').set('Authorization', `Bearer ${mfaToken}`).expect(401); // it is no access token

      expect((await verify(mfaToken, { code: (await wrongCodes(secret))[0] }).expect(401)).body).toEqual({
        status: 'fail',
        message: 'Wrong, expired or already used code',
      });
      const next = await codeAt(secret, 1); // the confirmation used this step's code
      const signedIn = await verify(mfaToken, { code: next }).expect(200);
      expect(signedIn.body.data).toMatchObject({ accessToken: expect.any(String), tokenType: 'Bearer' });
      expect(cookiesOf(signedIn).some((cookie) => cookie.startsWith('refreshToken='))).toBe(true);
      await http().get('/api/users/me').set('Authorization', `Bearer ${signedIn.body.data.accessToken}`).expect(200);

      const { mfaToken: second } = (await login(email).expect(200)).body.data;
      await verify(second, { code: next }).expect(401); // replayed within its window, with a new mfaToken
      await verify(second, { code: await codeAt(secret, -3) }).expect(401); // expired
      const reasons = app()
        .logLines()
        .filter((line) => line.action === 'mfa-verify' && line.outcome === 'refused')
        .map((line) => line.reason);
      expect(reasons.slice(-3)).toEqual(['wrong-code', 'replayed-code', 'wrong-code']);
    });

    it('a recovery code works once, in place of a code', async () => {
      const { email, recoveryCodes, bearer } = await enrolled();
      const { mfaToken } = (await login(email).expect(200)).body.data;
      const typed = recoveryCodes[0]!.toUpperCase().replace(/-/g, ' '); // as someone copies it from paper
      await verify(mfaToken, { recoveryCode: typed }).expect(200);
      await verify(mfaToken, { recoveryCode: recoveryCodes[0]! }).expect(401);
      expect((await http().get('/api/auth/mfa').set('Authorization', bearer).expect(200)).body.data).toEqual({
        enabled: true,
        recoveryCodesLeft: 9,
      });
    });

    it('an mfaToken signs in once: after its first success, the next code and a recovery code are refused with it', async () => {
      const { email, secret, recoveryCodes, bearer } = await enrolled();
      const { mfaToken } = (await login(email).expect(200)).body.data;
      await verify(mfaToken, { code: await codeAt(secret, 1) }).expect(200);
      const spent = await verify(mfaToken, { recoveryCode: recoveryCodes[0]! }).expect(401);
      expect(spent.body).toEqual({ status: 'fail', message: 'Invalid, expired or used mfaToken: log in again' });
      await verify(mfaToken, { code: await codeAt(secret, 2) }).expect(401);
      // A spent token is refused before the code is looked at: the recovery code is still there.
      expect((await http().get('/api/auth/mfa').set('Authorization', bearer).expect(200)).body.data).toEqual({
        enabled: true,
        recoveryCodesLeft: 10,
      });
      const refused = app()
        .logLines()
        .filter((line) => line.action === 'mfa-verify' && line.outcome === 'refused');
      expect(refused.slice(-2).map((line) => line.reason)).toEqual(['spent-token', 'spent-token']);
    });

    it('of two verifies racing with one mfaToken, exactly one signs in', async () => {
      const { email, secret, recoveryCodes } = await enrolled();
      const { mfaToken } = (await login(email).expect(200)).body.data;
      const answers = await Promise.all([
        verify(mfaToken, { code: await codeAt(secret, 1) }),
        verify(mfaToken, { recoveryCode: recoveryCodes[1]! }),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
      expect(answers.flatMap(cookiesOf).filter((cookie) => cookie.startsWith('refreshToken='))).toHaveLength(1);
    });

    it('a burst of ten verifies with the right code: one signs in, nine are told the token is used, none counts as wrong', async () => {
      const { email, secret } = await enrolled();
      const { mfaToken } = (await login(email).expect(200)).body.data;
      const code = await codeAt(secret, 1);
      const burst = await Promise.all(Array.from({ length: 10 }, () => verify(mfaToken, { code })));
      expect(burst.map((answer) => answer.status).sort()).toEqual([200, ...Array(9).fill(401)]);
      for (const answer of burst.filter((each) => each.status === 401))
        expect(answer.body.message).toBe('Invalid, expired or used mfaToken: log in again');
      // The same code again with new tokens (this step is used): "used", six times, past the limit of five wrong codes.
      for (let attempt = 0; attempt < 6; attempt += 1) {
        const { mfaToken: next } = (await login(email).expect(200)).body.data;
        expect((await verify(next, { code }).expect(401)).body.message).toBe(
          'This code was used already: wait for the next one',
        );
      }
      const { mfaToken: last } = (await login(email).expect(200)).body.data;
      for (const wrong of await wrongCodes(secret, 5)) await verify(last, { code: wrong }).expect(401); // five wrong ones still get their answer
      await verify(last, { code: await codeAt(secret, 1) }).expect(429);
    });

    it('of ten recovery codes racing with one mfaToken, one is used up: the losers keep theirs', async () => {
      const { email, recoveryCodes, bearer } = await enrolled();
      const { mfaToken } = (await login(email).expect(200)).body.data;
      const race = await Promise.all(recoveryCodes.map((recoveryCode) => verify(mfaToken, { recoveryCode })));
      expect(race.map((answer) => answer.status).sort()).toEqual([200, ...Array(9).fill(401)]);
      expect((await http().get('/api/auth/mfa').set('Authorization', bearer).expect(200)).body.data).toEqual({
        enabled: true,
        recoveryCodesLeft: 9,
      });
    });

    it('refuses a code that is expired at confirmation, and a malformed one', async () => {
      const email = await register();
      const bearer = `Bearer ${(await login(email).expect(200)).body.data.accessToken}`;
      const { secret } = (
        await http().post('/api/auth/mfa/enroll').set('Authorization', bearer).send({ password: PASSWORD }).expect(200)
      ).body.data;
      const expired = await http()
        .post('/api/auth/mfa/confirm')
        .set('Authorization', bearer)
        .send({ code: await codeAt(secret, -3) })
        .expect(422);
      expect(expired.body.errors).toEqual([{ field: 'code', message: expect.stringContaining('is wrong or expired') }]);
      await http().post('/api/auth/mfa/confirm').set('Authorization', bearer).send({ code: '12345' }).expect(422);
      expect((await login(email).expect(200)).body.data).toHaveProperty('accessToken'); // not on until confirmed
    });

    it('throttles codes like passwords: after five wrong ones even the right code waits', async () => {
      const { email, secret } = await enrolled();
      const { mfaToken } = (await login(email).expect(200)).body.data;
      for (const code of await wrongCodes(secret, 5)) await verify(mfaToken, { code }).expect(401);
      const throttled = await verify(mfaToken, { code: await codeAt(secret, 1) }).expect(429);
      expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    });

    it('a right factor forgets the wrong codes before it: four wrong, right, four wrong, right again', async () => {
      const { email, secret, recoveryCodes } = await enrolled();
      for (const recoveryCode of recoveryCodes.slice(0, 2)) {
        const { mfaToken } = (await login(email).expect(200)).body.data;
        for (const code of await wrongCodes(secret, 4)) await verify(mfaToken, { code }).expect(401);
        await verify(mfaToken, { recoveryCode }).expect(200); // with the count kept, the second round would be the 9th failure: 429
      }
    });

    it('an mfaToken issued before the sessions ended is refused', async () => {
      const { email, secret, bearer } = await enrolled();
      const { mfaToken } = (await login(email).expect(200)).body.data;
      await http().post('/api/auth/logout-all').set('Authorization', bearer).expect(204);
      await verify(mfaToken, { code: await codeAt(secret, 1) }).expect(401);
    });

    it('disabling takes the password and a code; then login needs none', async () => {
      const { email, secret, bearer } = await enrolled();
      await http()
        .post('/api/auth/mfa/disable')
        .set('Authorization', bearer)
        .send({ password: 'not the password at all', code: await codeAt(secret, 1) })
        .expect(401);
      await http()
        .post('/api/auth/mfa/disable')
        .set('Authorization', bearer)
        .send({ password: PASSWORD, code: (await wrongCodes(secret))[0] })
        .expect(401);
      await http()
        .post('/api/auth/mfa/disable')
        .set('Authorization', bearer)
        .send({ password: PASSWORD, code: await codeAt(secret, 1) })
        .expect(204);
      expect((await login(email).expect(200)).body.data).toHaveProperty('accessToken');
      expect((await mail.waitFor(email, 2)).map((sent) => sent.subject)).toEqual([
        'Two-factor login was turned on',
        'Two-factor login was turned off',
      ]);
      await http()
        .post('/api/auth/mfa/disable')
        .set('Authorization', bearer)
        .send({ password: PASSWORD, code: await codeAt(secret, 1) })
        .expect(409);
      expect((await http().get('/api/auth/mfa').set('Authorization', bearer).expect(200)).body.data).toEqual({
        enabled: false,
        recoveryCodesLeft: 0,
      });
    });

    it('stores the secret sealed and the recovery codes as digests, and logs none of them', async () => {
      const { email, secret, recoveryCodes } = await enrolled();
      const user = (await app().services.users.findByEmail(email))!;
      const stored = (await app().services.database.store(mfaStore).find(user.id))!;
      expect(stored).toMatchObject({ confirmed: true, lastStep: expect.any(Number) });
      expect(stored.secret).not.toContain(secret);
      expect(new SecretBox([MFA_KEY]).open(stored.secret, user.id)).toBe(secret);
      expect(() => new SecretBox([MFA_KEY]).open(stored.secret, 'another-user')).toThrow(); // bound to its user
      const logged = JSON.stringify(app().logLines());
      for (const value of [secret, email, ...recoveryCodes]) expect(logged).not.toContain(value);
    });

    it('removes the credential and the recovery codes with the user', async () => {
      const { email } = await enrolled();
      const user = (await app().services.users.findByEmail(email))!;
      const admin = await app().signIn('admin');
      await http().delete(`/api/users/${user.id}`).set('Authorization', admin.authorization).expect(204);
      const store = app().services.database.store(mfaStore);
      expect(await store.find(user.id)).toBeNull();
      expect(await store.recoveryCodesLeft(user.id)).toBe(0);
    });
  });
}
