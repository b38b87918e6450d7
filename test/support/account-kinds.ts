import request from 'supertest';
import type { TestApp } from './test-app';
import { ProviderBrowser } from './oidc-test-provider';
import { SoftwareAuthenticator } from './software-authenticator';
import { codeAt } from './totp-codes';

// The five kinds of account the proof of the owner is judged on (test/auth/owner-proof.test.ts), each made and
// signed in over HTTP the way its owner would: a browser (a supertest agent keeping its cookies), an
// authenticator for the passkeys, the TOTP secret and recovery codes, a browser at the provider.

export const PASSWORD = 'correct horse battery staple 42';
export type Kind = 'password' | 'password+totp' | 'passkey-only' | 'provider-only' | 'password+passkey';
export const KINDS: readonly Kind[] = [
  'password',
  'password+totp',
  'passkey-only',
  'provider-only',
  'password+passkey',
];

export interface Account {
  kind: Kind;
  id: string;
  email: string;
  browser: ReturnType<typeof request.agent>;
  authenticator: SoftwareAuthenticator;
  totpSecret?: string;
  recoveryCodes: string[];
  /** The provider's login name for this end-user (`<sub>~<email>~1`). */
  providerAccount: string;
}

export interface KindContext {
  app: () => TestApp;
  publicUrl: string;
  /** The provider's redirect back to the service, for a browser sent to `authorizationUrl`. */
  callbackOf: (provider: string) => string;
}

let made = 0;
const ok = (res: request.Response, status: number, what: string) => {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res;
};

/** Bearer of the browser's session now: a refresh, which keeps the session's `auth_time`. */
export async function refreshed(account: Account): Promise<string> {
  const res = ok(await account.browser.post('/api/auth/refresh'), 200, 'refresh');
  return `Bearer ${res.body.data.accessToken as string}`;
}

/** A sign-in at the provider in this browser (fresh: `max_age=0`): the session's refresh cookie is the browser's. */
export async function providerSignIn(
  context: KindContext,
  account: Account,
  fresh = true,
  provider = 'test',
): Promise<request.Response> {
  const start = ok(
    await account.browser.get(`/api/auth/oidc/${provider}/login`).query(fresh ? { fresh } : {}),
    302,
    'provider login',
  );
  const back = await new ProviderBrowser(context.callbackOf(provider)).signIn(start.headers.location as string, {
    account: account.providerAccount,
  });
  return account.browser.get(`/api/auth/oidc/${provider}/callback${back.search}`);
}

/** Adds a passkey with this bearer (which must carry a recent proof, or `proof` in the body). */
export async function addPasskey(
  account: Account,
  bearer: string,
  proof: Record<string, string> = {},
): Promise<request.Response> {
  const options = await account.browser
    .post('/api/auth/passkeys/register/options')
    .set('Authorization', bearer)
    .send(proof);
  if (options.status !== 200) return options;
  return account.browser
    .post('/api/auth/passkeys/register/verify')
    .set('Authorization', bearer)
    .send({ credential: account.authenticator.create(options.body.data) });
}

/** A sign-in with the account's passkey in its browser; the bearer. */
async function passkeySignIn(account: Account): Promise<string> {
  const options = ok(await account.browser.post('/api/auth/passkeys/login/options'), 200, 'passkey options');
  const res = ok(
    await account.browser
      .post('/api/auth/passkeys/login/verify')
      .send({ credential: account.authenticator.get(options.body.data) }),
    200,
    'passkey sign-in',
  );
  return `Bearer ${res.body.data.accessToken as string}`;
}

async function passwordSignIn(account: Account): Promise<string> {
  const res = ok(
    await account.browser.post('/api/auth/login').send({ email: account.email, password: PASSWORD }),
    200,
    'login',
  );
  return `Bearer ${res.body.data.accessToken as string}`;
}

/** Makes an account of this kind and signs it in: its bearer is a recent proof until REAUTH_MAX_AGE passes. */
export async function makeAccount(context: KindContext, kind: Kind): Promise<{ account: Account; bearer: string }> {
  made += 1;
  const email = `owner-${made}-${Date.now()}@example.com`;
  const browser = request.agent(context.app().app.callback());
  const authenticator = new SoftwareAuthenticator(context.publicUrl);
  const account: Account = {
    kind,
    id: '',
    email,
    browser,
    authenticator,
    recoveryCodes: [],
    providerAccount: `sub-${made}-${Date.now()}~${email}~1`,
  };
  if (kind === 'passkey-only') {
    const options = ok(
      await browser.post('/api/auth/passkeys/signup/options').send({ email, name: 'Ada' }),
      200,
      'signup options',
    );
    const created = await browser
      .post('/api/auth/passkeys/signup/verify')
      .send({ email, name: 'Ada', credential: authenticator.create(options.body.data) });
    account.id = ok(created, 201, 'passkey signup').body.data.id as string;
    return { account, bearer: await passkeySignIn(account) };
  }
  if (kind === 'provider-only') {
    ok(await providerSignIn(context, account, false), 302, 'provider sign-up');
    account.id = (await context.app().services.users.findByEmail(email))!.id;
    return { account, bearer: await refreshed(account) };
  }
  account.id = ok(
    await browser.post('/api/auth/register').send({ name: 'Ada', email, password: PASSWORD }),
    201,
    'register',
  ).body.data.id as string;
  const first = await passwordSignIn(account);
  if (kind === 'password+passkey') ok(await addPasskey(account, first), 201, 'first passkey');
  if (kind !== 'password+totp') return { account, bearer: first };
  const enrolled = ok(await browser.post('/api/auth/mfa/enroll').set('Authorization', first).send({}), 200, 'enrol');
  account.totpSecret = enrolled.body.data.secret as string;
  const confirmed = await browser
    .post('/api/auth/mfa/confirm')
    .set('Authorization', first)
    .send({ code: await codeAt(account.totpSecret) });
  account.recoveryCodes = [...(ok(confirmed, 200, 'confirm').body.data.recoveryCodes as string[])];
  const login = ok(await browser.post('/api/auth/login').send({ email, password: PASSWORD }), 200, 'login');
  const verified = await browser
    .post('/api/auth/mfa/verify')
    .send({ mfaToken: login.body.data.mfaToken, recoveryCode: account.recoveryCodes.shift() });
  return { account, bearer: `Bearer ${ok(verified, 200, 'second factor').body.data.accessToken as string}` };
}

/**
 * The account's proof, given again: POST /api/auth/reauth with what signs it in (the password, with a recovery
 * code when two-factor login is on, or a passkey), or a fresh sign-in at the provider. The new bearer.
 */
export async function reauthenticate(context: KindContext, account: Account, bearer: string): Promise<string> {
  if (account.kind === 'provider-only') {
    ok(await providerSignIn(context, account), 302, 'fresh provider sign-in');
    return refreshed(account);
  }
  let body: Record<string, unknown>;
  if (account.kind === 'passkey-only' || account.kind === 'password+passkey') {
    const options = ok(
      await account.browser.post('/api/auth/reauth/options').set('Authorization', bearer),
      200,
      'reauth options',
    );
    body = { credential: account.authenticator.get(options.body.data) };
  } else {
    body =
      account.kind === 'password+totp'
        ? { password: PASSWORD, recoveryCode: account.recoveryCodes.shift() }
        : { password: PASSWORD };
  }
  const res = ok(await account.browser.post('/api/auth/reauth').set('Authorization', bearer).send(body), 200, 'reauth');
  return `Bearer ${res.body.data.accessToken as string}`;
}
