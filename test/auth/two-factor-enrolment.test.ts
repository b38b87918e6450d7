import { codeAt, wrongCodes } from '../support/totp-codes';
import { refreshTokenFrom } from '../support/auth-helpers';
import type request from 'supertest';
import { mfaStore } from '../../src/auth/stores/definitions';
import { testEngines } from '../support/engines';
import { MAIL_TEST_PASSWORD as PASSWORD, useMailApp } from '../support/mail-app';

// Turning two-factor login on, over HTTP on every engine here: it takes the current password (counted by the
// login throttle), so a stolen access token alone cannot add a factor; a confirmed factor ends every other
// session of the user, mails the owner a notice (a real SMTP server on loopback) and is logged.

const MFA_KEY = 'test-mfa-sealing-key-0123456789abcdef0123456789';
/** The refresh cookie a response set; throws when it set none, so a refusal below is never of `refreshToken=undefined`. */
function refreshCookieOf(res: request.Response): string {
  const token = refreshTokenFrom(res);
  if (!token) throw new Error(`no refresh cookie in the ${res.status} answer`);
  return `refreshToken=${token}`;
}

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`two-factor enrolment on ${target.label}`, () => {
    const { app, http, mail, register } = useMailApp(target, {
      MFA_ENCRYPTION_KEY: MFA_KEY,
      LOGIN_THROTTLE_FAILURES: '3',
    });
    const login = (email: string) => http().post('/api/auth/login').send({ email, password: PASSWORD });
    const enrol = (bearer: string, body: object) =>
      http().post('/api/auth/mfa/enroll').set('Authorization', bearer).send(body);
    /** A registered user signed in: their address, id, bearer and refresh cookie. */
    const signedIn = async () => {
      const email = await register();
      const session = await login(email).expect(200);
      const user = (await app().services.users.findByEmail(email))!;
      return {
        email,
        userId: user.id,
        bearer: `Bearer ${session.body.data.accessToken}`,
        cookie: refreshCookieOf(session),
      };
    };
    const stored = (userId: string) => app().services.database.store(mfaStore).find(userId);

    it('a stolen access token alone cannot turn on a second factor: no password, a wrong one → refused, nothing stored', async () => {
      const { email, userId } = await signedIn();
      // The thief's token is past REAUTH_MAX_AGE (its owner signed in an hour ago): it proves nobody now.
      const user = (await app().services.users.findById(userId))!;
      const bearer = `Bearer ${app().services.tokens.signAccessToken({ ...user, proof: { authTime: Math.floor(Date.now() / 1000) - 3600, amr: ['pwd'] } })}`;
      const missing = await enrol(bearer, {}).expect(401);
      expect(missing.headers['www-authenticate']).toMatch(
        /^Bearer error="insufficient_user_authentication", .*max_age=300$/,
      );
      const wrong = await enrol(bearer, { password: 'the thief does not know it' }).expect(401);
      expect(wrong.body).toEqual({ status: 'fail', message: 'The password is wrong' });
      expect(await stored(userId)).toBeNull();
      await http().post('/api/auth/mfa/confirm').set('Authorization', bearer).send({ code: '123456' }).expect(409); // nothing to confirm
      expect((await http().get('/api/auth/mfa').set('Authorization', bearer).expect(200)).body.data).toEqual({
        enabled: false,
        recoveryCodesLeft: 0,
      });
      expect((await login(email).expect(200)).body.data).toHaveProperty('accessToken'); // the owner's login is as it was
      expect(app().logLines()).toContainEqual(
        expect.objectContaining({
          event: 'auth',
          action: 'owner-proof',
          outcome: 'refused',
          reason: 'step-up',
          userId,
        }),
      );
      expect(app().logLines()).toContainEqual(
        expect.objectContaining({
          event: 'auth',
          action: 'owner-proof',
          outcome: 'refused',
          reason: 'wrong-password',
          userId,
        }),
      );
    });

    it("counts the enrolment's password checks with login's: wrong ones there hold back the right password at login", async () => {
      const { email, userId, bearer } = await signedIn();
      for (let i = 0; i < 3; i += 1) await enrol(bearer, { password: `guess number ${i} of the thief` }).expect(401);
      const throttled = await enrol(bearer, { password: PASSWORD }).expect(429);
      expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
      await login(email).expect(429); // the same counters as login (this client, this account)
      expect(await stored(userId)).toBeNull();
    });

    it('a second enrolment before confirmation replaces the first, and only after the password', async () => {
      const { userId, bearer } = await signedIn();
      const first = (await enrol(bearer, { password: PASSWORD }).expect(200)).body.data.secret as string;
      await enrol(bearer, { password: 'not the password at all' }).expect(401);
      expect((await stored(userId))?.confirmed).toBe(false);
      await http()
        .post('/api/auth/mfa/confirm')
        .set('Authorization', bearer)
        .send({ code: await codeAt(first) })
        .expect(200); // the first stayed
      const again = await signedIn();
      const older = (await enrol(again.bearer, { password: PASSWORD }).expect(200)).body.data.secret as string;
      const newer = (await enrol(again.bearer, { password: PASSWORD }).expect(200)).body.data.secret as string;
      expect(newer).not.toBe(older);
      await http()
        .post('/api/auth/mfa/confirm')
        .set('Authorization', again.bearer)
        .send({ code: await codeAt(older) })
        .expect(422);
    });

    it("counts wrong codes at confirmation with those at login: a thief guessing at a pending enrolment has the login throttle's few tries", async () => {
      const { bearer } = await signedIn();
      const { secret } = (await enrol(bearer, { password: PASSWORD }).expect(200)).body.data;
      const statuses = [];
      for (const code of await wrongCodes(secret, app().config.loginThrottle.pairFailures))
        statuses.push((await http().post('/api/auth/mfa/confirm').set('Authorization', bearer).send({ code })).status);
      expect(statuses).toEqual(statuses.map(() => 422));
      const held = await http()
        .post('/api/auth/mfa/confirm')
        .set('Authorization', bearer)
        .send({ code: await codeAt(secret) })
        .expect(429); // the right code too, until the window ends
      expect(Number(held.headers['retry-after'])).toBeGreaterThan(0);
    });

    it('confirming ends every other session, keeps the caller in a new one, mails the owner and logs it', async () => {
      const { email, userId, bearer, cookie } = await signedIn();
      const other = await login(email).expect(200); // another device
      const otherBearer = `Bearer ${other.body.data.accessToken}`;
      const { secret } = (await enrol(bearer, { password: PASSWORD }).expect(200)).body.data;
      const confirmed = await http()
        .post('/api/auth/mfa/confirm')
        .set('Authorization', bearer)
        .send({ code: await codeAt(secret) })
        .expect(200);

      await http().get('/api/users/me').set('Authorization', otherBearer).expect(401);
      await http().post('/api/auth/refresh').set('Cookie', refreshCookieOf(other)).expect(401);
      await http().post('/api/auth/refresh').set('Cookie', cookie).expect(401); // the caller's old session too
      await http().get('/api/users/me').set('Authorization', bearer).expect(401);
      const renewed = await http().post('/api/auth/refresh').set('Cookie', refreshCookieOf(confirmed)).expect(200); // the new one works
      await http().get('/api/users/me').set('Authorization', `Bearer ${renewed.body.data.accessToken}`).expect(200);

      const [notice] = await mail.waitFor(email);
      expect(notice).toMatchObject({ subject: 'Two-factor login was turned on' });
      expect(notice!.text).toContain('Every other session of the account was ended.');
      expect(notice!.text).not.toContain(secret);
      const events = app()
        .logLines()
        .filter((line) => line.action === 'mfa-enroll' && line.userId === userId)
        .map((line) => line.outcome);
      expect(events).toEqual(['started', 'confirmed']);
    });
  });
}
