import type request from 'supertest';
import { digestOf } from '../../src/auth/account-links';
import { accountTokenStore } from '../../src/auth/stores/definitions';
import { testEngines } from '../support/engines';
import { MAIL_PUBLIC_URL as PUBLIC_URL, MAIL_TEST_PASSWORD as PASSWORD, useMailApp } from '../support/mail-app';
import { tokenIn } from '../support/mail-catcher';

// Password reset by email, on every engine here, with a real SMTP server on loopback reading what was sent:
// the same answer for known and unknown addresses, the link in the mail, a reset that ends every session,
// a token that works once and not after expiry, and a mail outage that changes nothing for the caller.

const NEW_PASSWORD = 'violet kettle drums the harbour 7';
const refreshCookieOf = (res: request.Response) =>
  ([] as string[])
    .concat(res.headers['set-cookie'] ?? [])
    .find((c) => c.startsWith('refreshToken='))!
    .split(';')[0]!;

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`password reset by email on ${target.label}`, () => {
    const { app, http, mail, register } = useMailApp(target, { MAIL_FROM: 'Service <no-reply@example.test>' });
    const forgot = async (email: string) => http().post('/api/auth/forgot-password').send({ email }).expect(202);

    it('answers known and unknown addresses alike, and mails a single-use link to the known one only', async () => {
      const email = await register();
      const unknown = `nobody-${Date.now()}@example.com`;
      const [known, other] = [await forgot(email), await forgot(unknown)];
      expect(known.body).toEqual(other.body);
      expect(known.body).toEqual({
        status: 'success',
        data: { message: 'If the address belongs to an account, a link to reset its password is on its way' },
      });
      const [sent] = await mail.waitFor(email);
      if (process.env.SHOW_MAIL) console.info(`${sent!.raw.split(/\r?\n\r?\n/)[0]}\n\n${sent!.text}`); // for a reader: one mail as received
      expect(sent).toMatchObject({
        to: email,
        from: '"Service" <no-reply@example.test>',
        subject: 'Reset your password',
      });
      expect(sent!.text).toMatch(new RegExp(`${PUBLIC_URL}/reset-password\\?token=[A-Za-z0-9_-]{43}\\n`));
      expect(sent!.html).toContain(`href="${PUBLIC_URL}/reset-password?token=${tokenIn(sent!.text)}"`);
      expect(await mail.waitFor(unknown, 1, 300)).toEqual([]);
      // Only a digest is stored: the token itself is in the mail and nowhere else.
      const stored = await app()
        .services.database.store(accountTokenStore)
        .find(digestOf(tokenIn(sent!.text)!), 'password-reset');
      expect(stored).toMatchObject({ purpose: 'password-reset', expiresAt: expect.any(Date) });
      expect(JSON.stringify(app().logLines())).not.toContain(tokenIn(sent!.text));
      expect(JSON.stringify(app().logLines())).not.toContain(email);
    });

    it('sets the new password under the policy, ends every session, and the token works once', async () => {
      const email = await register();
      const login = await http().post('/api/auth/login').send({ email, password: PASSWORD }).expect(200);
      const bearer = `Bearer ${login.body.data.accessToken}`;
      const cookie = refreshCookieOf(login);
      await forgot(email);
      const token = tokenIn((await mail.waitFor(email))[0]!.text)!;

      const weak = await http().post('/api/auth/reset-password').send({ token, password: 'password1234' }).expect(422);
      expect(weak.body.errors).toEqual([{ field: 'password', message: expect.any(String) }]);
      await http().post('/api/auth/reset-password').send({ token, password: NEW_PASSWORD }).expect(204); // still worked

      await http().get('/api/users/me').set('Authorization', bearer).expect(401);
      await http().post('/api/auth/refresh').set('Cookie', cookie).expect(401);
      await http().post('/api/auth/login').send({ email, password: PASSWORD }).expect(401);
      await http().post('/api/auth/login').send({ email, password: NEW_PASSWORD }).expect(200);
      const again = await http()
        .post('/api/auth/reset-password')
        .send({ token, password: 'another fine password 99 x' })
        .expect(422);
      expect(again.body.errors).toEqual([{ field: 'token', message: 'is invalid, expired or used already' }]);
    });

    it('refuses an expired token, an unknown one, and an older link once a newer one was sent', async () => {
      const email = await register();
      await forgot(email);
      const first = tokenIn((await mail.waitFor(email, 1))[0]!.text)!;
      await forgot(email);
      const second = tokenIn((await mail.waitFor(email, 2))[1]!.text)!;
      const refused = async (token: string) =>
        expect(
          (await http().post('/api/auth/reset-password').send({ token, password: NEW_PASSWORD }).expect(422)).body
            .errors[0].field,
        ).toBe('token');
      await refused(first);
      await refused('x'.repeat(43));
      const user = await app().services.users.findByEmail(email);
      const expired = 'expired-token-value-for-the-test-0000000000';
      await app()
        .services.database.store(accountTokenStore)
        .create({
          digest: digestOf(expired),
          userId: user!.id,
          purpose: 'password-reset',
          expiresAt: new Date(Date.now() - 1000),
        });
      await refused(expired);
      await http().post('/api/auth/reset-password').send({ token: second, password: NEW_PASSWORD }).expect(204);
    });

    it('answers the same while the mail server refuses, and delivers when it is back (bounded retries, logged without the address)', async () => {
      const email = await register();
      // The outage lasts until the outbox has been refused once (a fixed wait could end before its first try).
      const refusals = () =>
        app()
          .logLines()
          .filter((line) => line.msg === 'mail delivery failed, retrying').length;
      const before = refusals();
      mail.refusing = true;
      await forgot(email);
      for (const deadline = Date.now() + 5000; refusals() === before && Date.now() < deadline;)
        await new Promise((resolve) => setTimeout(resolve, 20));
      mail.refusing = false;
      const delivered = await mail.waitFor(email, 1, 8000); // the first retry comes a second later
      expect(delivered).toHaveLength(1);
      const failures = app()
        .logLines()
        .filter((line) => line.msg === 'mail delivery failed, retrying');
      expect(failures.length).toBeGreaterThan(before);
      expect(failures[before]).toMatchObject({
        mail: 'password-reset',
        domain: 'example.com',
        attempt: 1,
        code: '451',
      });
      expect(JSON.stringify(failures)).not.toContain(email);
    });
  });
}
