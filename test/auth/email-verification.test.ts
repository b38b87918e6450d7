import { REGISTRATION_ACCEPTED } from '../../src/modules/auth/routes';
import { EMAIL_NOT_VERIFIED } from '../../src/modules/auth/session-refusals';
import { testEngines } from '../support/engines';
import { MAIL_TEST_PASSWORD as PASSWORD, useMailApp } from '../support/mail-app';
import { tokenIn } from '../support/mail-catcher';

// EMAIL_VERIFICATION=required on every engine here, with a real SMTP server on loopback: registration mails a
// link, login waits for it with a distinct answer, the link verifies once, resend answers alike for every
// address and mails only an unverified account, and /api/users/me tells. Registration answers a new and a
// taken address alike (the owner of the taken one is told by mail).

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`email verification on ${target.label}`, () => {
    const { app, http, mail, register } = useMailApp(target, { EMAIL_VERIFICATION: 'required' });
    const login = (email: string) => http().post('/api/auth/login').send({ email, password: PASSWORD });

    it('register → mail → login refused until verified → verify → login, and the link works once', async () => {
      const email = await register();
      const [sent] = await mail.waitFor(email);
      expect(sent).toMatchObject({ subject: 'Confirm your email address' });
      expect(sent!.text).toMatch(/https:\/\/app\.example\.test\/verify-email\?token=[A-Za-z0-9_-]{43}\n/);
      const refused = await login(email).expect(403);
      expect(refused.body).toEqual({ status: 'fail', message: EMAIL_NOT_VERIFIED });
      expect(refused.headers['set-cookie']).toBeUndefined(); // no session, no cookie
      await http().post('/api/auth/login').send({ email, password: 'a wrong password entirely' }).expect(401); // a guesser learns nothing new

      const token = tokenIn(sent!.text)!;
      await http().post('/api/auth/verify-email').send({ token }).expect(204);
      const again = await http().post('/api/auth/verify-email').send({ token }).expect(422);
      expect(again.body.errors).toEqual([{ field: 'token', message: 'is invalid, expired or used already' }]);
      const session = await login(email).expect(200);
      const me = await http()
        .get('/api/users/me')
        .set('Authorization', `Bearer ${session.body.data.accessToken}`)
        .expect(200);
      expect(me.body.data).toMatchObject({ email, emailVerified: true });
    });

    it('registration answers a new and a taken address alike, and mails the owner of the taken one', async () => {
      const email = `alike-${Date.now()}@example.com`;
      const first = await http()
        .post('/api/auth/register')
        .send({ name: 'Owner', email, password: PASSWORD })
        .expect(202);
      const taken = await http()
        .post('/api/auth/register')
        .send({ name: 'Someone Else', email: email.toUpperCase(), password: 'another long passphrase 97' })
        .expect(202);
      expect(taken.body).toEqual(first.body);
      expect(first.body).toEqual({ status: 'success', data: { message: REGISTRATION_ACCEPTED } });
      expect(taken.headers.location).toBeUndefined();
      const mails = await mail.waitFor(email, 2);
      expect(mails.map((sent) => sent.subject).sort()).toEqual([
        'Confirm your email address',
        'Someone tried to register with your address',
      ]);
      const notice = mails.find((sent) => sent.subject.startsWith('Someone tried'))!;
      expect(tokenIn(notice.text)).toBeUndefined(); // no link: nothing to act on but the owner's own login
      await http().post('/api/auth/login').send({ email, password: 'another long passphrase 97' }).expect(401); // the account is the owner's still
      expect(app().logLines()).toContainEqual(
        expect.objectContaining({ action: 'register', outcome: 'taken', emailHash: expect.any(String) }),
      );
      expect(JSON.stringify(app().logLines())).not.toContain(email);
    });

    it('resend answers every address alike and mails only an unverified account', async () => {
      const unverified = await register();
      await mail.waitFor(unverified, 1);
      const verifiedEmail = await register();
      await http()
        .post('/api/auth/verify-email')
        .send({ token: tokenIn((await mail.waitFor(verifiedEmail, 1))[0]!.text) })
        .expect(204);
      const unknown = `nobody-${Date.now()}@example.com`;
      const answers = await Promise.all(
        [unverified, verifiedEmail, unknown].map((email) =>
          http().post('/api/auth/resend-verification').send({ email }).expect(202),
        ),
      );
      expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1);
      expect(await mail.waitFor(unverified, 2)).toHaveLength(2);
      expect(await mail.waitFor(verifiedEmail, 2, 300)).toHaveLength(1);
      expect(await mail.waitFor(unknown, 1, 100)).toHaveLength(0);
      // The first link was replaced by the second.
      const [first, second] = await mail.waitFor(unverified, 2);
      await http()
        .post('/api/auth/verify-email')
        .send({ token: tokenIn(first!.text) })
        .expect(422);
      await http()
        .post('/api/auth/verify-email')
        .send({ token: tokenIn(second!.text) })
        .expect(204);
    });

    (target.engine === 'sqlite' ? it : it.skip)(
      'registers even when the link cannot be stored, and logs which store call failed',
      async () => {
        // The store calls go through the observed database; the table is broken on the one underneath.
        const database = (
          app().services.database as unknown as { inner: { sequelize: { query(sql: string): Promise<unknown> } } }
        ).inner;
        await database.sequelize.query('ALTER TABLE account_tokens RENAME TO account_tokens_gone');
        try {
          const email = await register();
          for (
            let i = 0;
            i < 40 &&
            !app()
              .logLines()
              .some((line) => line.msg === 'verification link not sent');
            i += 1
          )
            await new Promise((resolve) => setTimeout(resolve, 25));
          const logged = app()
            .logLines()
            .find((line) => line.msg === 'verification link not sent');
          expect(logged).toMatchObject({ err: { operation: 'account-tokens.deleteForUser' } });
          expect(JSON.stringify(logged)).not.toContain(email);
        } finally {
          await database.sequelize.query('ALTER TABLE account_tokens_gone RENAME TO account_tokens');
        }
      },
    );
  });
}
