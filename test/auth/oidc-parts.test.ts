import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CredentialVerifier } from '../../src/auth/credentials';
import { FlowSeal, FLOW_TTL_SECONDS, type SignInFlow } from '../../src/auth/oidc/flow-cookie';
import request from 'supertest';
import { ProviderDirectory } from '../../src/auth/oidc/provider-directory';
import { discoverProviders, type OidcProvider } from '../../src/auth/oidc/providers';
import { safeReturnTo } from '../../src/auth/oidc/return-to';
import { NO_PASSWORD, PasswordHasher } from '../../src/auth/passwords';
import type { UserRecord, UserStore } from '../../src/auth/stores/user-store';
import { loadConfig } from '../../src/config/config';
import { configError } from '../support/config-error';
import { authModule } from '../../src/modules/auth';
import { buildTestApp, memoryLogger, TEST_SECRETS } from '../support/test-app';
import { withSegmentChanged } from '../support/tamper';

// The parts of OpenID Connect sign-in that need no provider: the settings, where the browser may return
// to, the sealed flow cookie, a provider-made user's missing password, and discovery that fails naming
// the variable. The whole flow against a real provider is test/auth/oidc-sign-in.test.ts.

const BASE = { NODE_ENV: 'test', ...TEST_SECRETS, USER_STORE: 'database', PUBLIC_URL: 'https://app.example.test' };
const CORP = {
  OIDC_PROVIDERS: 'corp',
  OIDC_CORP_ISSUER: 'https://login.example.com/realms/corp',
  OIDC_CORP_CLIENT_ID: 'api',
  OIDC_CORP_CLIENT_SECRET: 'secret',
};

describe('OIDC settings', () => {
  it('are off without OIDC_PROVIDERS, and read per provider with it', () => {
    expect(loadConfig(BASE).oidc).toBeUndefined();
    const { oidc } = loadConfig({
      ...BASE,
      ...CORP,
      OIDC_PROVIDERS: ' Corp ',
      OIDC_CORP_SCOPES: 'openid email',
      AUTH_REGISTRATION: 'true',
    });
    expect(oidc).toEqual({
      publicUrl: 'https://app.example.test',
      providers: [
        {
          name: 'corp',
          prefix: 'OIDC_CORP_',
          issuer: new URL('https://login.example.com/realms/corp'),
          clientId: 'api',
          clientSecret: 'secret',
          scopes: 'openid email',
          registration: true,
          linkByEmail: false,
        },
      ],
    });
    expect(loadConfig({ ...BASE, ...CORP }).oidc!.providers[0]).toMatchObject({
      scopes: 'openid email profile',
      registration: false,
    });
  });

  it.each([
    [{ OIDC_CORP_ISSUER: '' }, 'OIDC_CORP_ISSUER', 'is required'],
    [{ OIDC_CORP_CLIENT_SECRET: '' }, 'OIDC_CORP_CLIENT_SECRET', 'is required'],
    [{ OIDC_CORP_ISSUER: 'http://login.example.com' }, 'OIDC_CORP_ISSUER', 'must be an https:// URL'],
    [{ OIDC_CORP_ISSUER: 'not a url' }, 'OIDC_CORP_ISSUER', 'must be the issuer URL'],
    [
      { OIDC_CORP_ISSUER: `https://login.example.com/${'r'.repeat(240)}` },
      'OIDC_CORP_ISSUER',
      'must be the issuer URL',
    ],
    [{ OIDC_CORP_SCOPES: 'email profile' }, 'OIDC_CORP_SCOPES', 'must include openid'],
    [{ OIDC_PROVIDERS: 'corp,corp' }, 'OIDC_PROVIDERS', 'lists the same provider twice'],
    [{ OIDC_PROVIDERS: 'co-rp' }, 'OIDC_PROVIDERS', 'must be a comma-separated list'],
    [{ PUBLIC_URL: '' }, 'OIDC_PROVIDERS', 'needs PUBLIC_URL'],
    [{ USER_STORE: 'demo' }, 'OIDC_PROVIDERS', 'needs USER_STORE=database'],
    [{ OIDC_CORP_REGISTRATION: 'maybe' }, 'OIDC_CORP_REGISTRATION', 'must be true or false'],
  ])('refuses %j, naming %s', (change, variable, problem) => {
    const error = configError({ ...BASE, ...CORP, ...change });
    expect(error.variable).toBe(variable);
    expect(error.message).toContain(problem);
  });

  it('takes a plain-HTTP issuer on this machine outside production only', () => {
    expect(
      loadConfig({ ...BASE, ...CORP, OIDC_CORP_ISSUER: 'http://127.0.0.1:8080/realms/dev' }).oidc!.providers[0].issuer
        .href,
    ).toBe('http://127.0.0.1:8080/realms/dev');
    const secrets = {
      JWT_SECRET: randomBytes(48).toString('base64'),
      REFRESH_TOKEN_SECRET: randomBytes(48).toString('base64'),
    };
    const production = {
      ...BASE,
      ...CORP,
      ...secrets,
      NODE_ENV: 'production',
      OIDC_CORP_ISSUER: 'http://localhost:8080',
    };
    expect(configError(production).variable).toBe('OIDC_CORP_ISSUER');
    expect(loadConfig({ ...production, OIDC_CORP_ISSUER: 'https://login.example.com' }).oidc).toBeDefined();
    // A .localhost name (the Compose oidc profile's provider) counts as this machine's; a lookalike does not.
    expect(
      loadConfig({ ...BASE, ...CORP, OIDC_CORP_ISSUER: 'http://oidc-dev.localhost:9400' }).oidc!.providers[0].issuer
        .host,
    ).toBe('oidc-dev.localhost:9400');
    expect(configError({ ...BASE, ...CORP, OIDC_CORP_ISSUER: 'http://oidc-dev.localhost.example.com' }).variable).toBe(
      'OIDC_CORP_ISSUER',
    );
    expect(configError({ ...production, OIDC_CORP_ISSUER: 'http://oidc-dev.localhost:9400' }).variable).toBe(
      'OIDC_CORP_ISSUER',
    );
  });
});

describe('returnTo', () => {
  it.each(['/', '/account', '/a/b?tab=x&y=1', '/search?q=%2F%2Fevil', '/%0d%0a'])('keeps the path %s', (path) =>
    expect(safeReturnTo(path)).toBe(path),
  );
  it.each([
    undefined,
    '',
    'account',
    'https://evil.example/',
    '//evil.example',
    '/\\evil.example',
    '/a\r\nSet-Cookie:x',
    '/a b',
    '/a#frag',
    '/a\tb',
    '/../../x',
    `/${'a'.repeat(2001)}`,
    ['/a'],
  ])('falls back to / for %j', (value) => expect(safeReturnTo(value)).toBe('/'));
});

describe('the sealed flow cookie', () => {
  const flow: SignInFlow = {
    provider: 'corp',
    returnTo: '/x',
    state: 's',
    nonce: 'n',
    codeVerifier: 'v',
    startedAt: 1_000,
  };
  const seal = new FlowSeal(TEST_SECRETS.REFRESH_TOKEN_SECRET);

  it('opens what it sealed, until it expires; the browser cannot read the verifier', () => {
    const sealed = seal.seal(flow, 1_000_000);
    expect(sealed).not.toContain('"codeVerifier"');
    expect(Buffer.from(sealed.split('.')[3], 'base64url').toString()).not.toContain('codeVerifier');
    expect(seal.open(sealed, 1_000_000 + (FLOW_TTL_SECONDS - 1) * 1000)).toEqual(flow);
    expect(seal.open(sealed, 1_000_000 + FLOW_TTL_SECONDS * 1000)).toBeUndefined();
  });

  it('refuses a changed value, another key’s seal, and garbage', () => {
    const sealed = seal.seal(flow);
    expect(seal.open(withSegmentChanged(sealed, 3))).toBeUndefined();
    expect(new FlowSeal('another-secret-0123456789abcdef0123456789').open(sealed)).toBeUndefined();
    for (const garbage of [undefined, '', 'x', 'v1.a.b.c.d']) expect(seal.open(garbage)).toBeUndefined();
  });
});

describe('a user without a password (made by a provider sign-in)', () => {
  it('costs the argon2 work of an unknown user at login, and matches nothing', async () => {
    const hasher = new PasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });
    const user: UserRecord = {
      id: 'u1',
      email: 'a@example.com',
      passwordHash: NO_PASSWORD,
      role: 'user',
      name: null,
      sessionVersion: 0,
      emailVerified: true,
    };
    const users = { findByEmail: async () => user } as unknown as UserStore;
    const verify = jest.spyOn(hasher, 'verify');
    const check = await new CredentialVerifier(users, hasher, memoryLogger().logger).verify(
      'a@example.com',
      NO_PASSWORD,
    );
    expect(check).toEqual({ ok: false, userId: 'u1' });
    expect(verify).toHaveBeenCalledTimes(1);
    expect(verify.mock.calls[0][0]).toMatch(/^\$argon2id\$/); // the dummy hash, not an instant refusal
  });
});

/** A loopback port nobody listens on. */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });

describe('discovery at start-up', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    // Answers JSON that is no discovery document.
    server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":"world"}'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const settings = (issuer: string) => loadConfig({ ...BASE, ...CORP, OIDC_CORP_ISSUER: issuer }).oidc!;

  it("an unreachable provider is that provider's outage: start-up goes on, its routes answer 503, /health/ready stays ready and lists it", async () => {
    const env = {
      ...CORP,
      DATABASE_URL: 'sqlite::memory:',
      OIDC_CORP_ISSUER: `http://127.0.0.1:${await closedPort()}`,
    };
    const app = await buildTestApp({
      env: { USER_STORE: 'database', PUBLIC_URL: BASE.PUBLIC_URL, ...env },
      modules: [authModule],
    });
    try {
      const http = () => request(app.app.callback());
      const login = await http().get('/api/auth/oidc/corp/login').expect(503);
      expect(login.headers['retry-after']).toBe('30');
      expect(login.body).toEqual({
        status: 'fail',
        message: 'This sign-in provider cannot be reached at the moment: try again later',
      });
      await http().get('/api/auth/oidc/corp/callback?state=x').expect(503);
      expect((await http().get('/api/auth/oidc').expect(200)).body.data).toEqual([]);
      expect((await http().get('/health/ready').expect(200)).body.data).toEqual({
        status: 'ready',
        database: 'sqlite',
        oidcPending: ['corp'],
      });
      await http().post('/api/auth/login').send({ email: 'nobody@example.com', password: 'not this one' }).expect(401); // password login is up
      expect(
        app
          .logLines()
          .some(
            (line) =>
              line.msg ===
              'OpenID Connect provider not reachable: its sign-in answers 503 until it is discovered (OIDC_CORP_ISSUER)',
          ),
      ).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('keeps discovering an unreachable provider in the background, doubling the pause, until it answers', async () => {
    const { logger, lines } = memoryLogger();
    const providers = loadConfig({ ...BASE, ...CORP }).oidc!.providers;
    let calls = 0;
    const provider = { name: 'corp' } as OidcProvider;
    const outage = Object.assign(new Error('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    const directory = await new ProviderDirectory(providers, {
      discover: async () => {
        calls += 1;
        if (calls < 3) throw outage;
        return provider;
      },
      classify: () => ({ outage: true, reason: 'connect ECONNREFUSED' }),
      logger,
      firstRetryMs: 5,
    }).start();
    expect(directory.get('corp')).toBe('pending');
    expect(directory.pending()).toEqual(['corp']);
    for (let waited = 0; directory.get('corp') === 'pending' && waited < 2_000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(directory.get('corp')).toBe(provider);
    expect(directory.pending()).toEqual([]);
    expect(calls).toBe(3);
    expect(
      lines().filter((line) => line.msg === 'OpenID Connect provider still not discovered (OIDC_CORP_ISSUER)'),
    ).toHaveLength(1);
    directory.close();
  });

  it('stops start-up at once on an answer that is no discovery document for that issuer, naming the variable', async () => {
    const started = Date.now();
    await expect(discoverProviders(settings(`http://127.0.0.1:${port}`), memoryLogger().logger)).rejects.toThrow(
      new RegExp(
        `^OIDC_CORP_ISSUER: http://127.0.0.1:${port}/ did not answer with its OpenID Connect discovery document: `,
      ),
    );
    const env = { ...CORP, DATABASE_URL: 'sqlite::memory:', OIDC_CORP_ISSUER: `http://127.0.0.1:${port}` };
    await expect(
      buildTestApp({ env: { USER_STORE: 'database', PUBLIC_URL: BASE.PUBLIC_URL, ...env }, modules: [authModule] }),
    ).rejects.toThrow(/^OIDC_CORP_ISSUER: /);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
