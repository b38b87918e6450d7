import { OidcAccounts } from '../../src/auth/oidc/oidc-accounts';
import type { ProviderIdentity } from '../../src/auth/oidc/provider-types';
import { NO_PASSWORD } from '../../src/auth/passwords';
import type { IdentityStore, LinkedIdentity } from '../../src/auth/stores/identity-store';
import type { SignInMethodStore } from '../../src/auth/stores/sign-in-method-store';
import type { NewUser, UserRecord, UserStore } from '../../src/auth/stores/user-store';
import { DuplicateKeyError } from '../../src/stores/errors';

// The account rules of OpenID Connect sign-in on in-memory stores, for what HTTP cannot stage on demand: a
// link whose user is gone, and two sign-ins of one new identity racing (the user, then the link, made by
// the other). The flow over HTTP on real engines is test/auth/oidc-sign-in.test.ts.

const ISSUER = 'https://idp.example.com';
const identity = (over: Partial<ProviderIdentity> = {}): ProviderIdentity => ({
  issuer: ISSUER,
  subject: 's1',
  email: 'ada@example.com',
  emailVerified: true,
  name: 'Ada',
  ...over,
});
const open = { name: 'corp', registration: true, linkByEmail: true };

function memoryStores() {
  const users = new Map<string, UserRecord>();
  const links = new Map<string, LinkedIdentity>();
  let next = 0;
  const userStore = {
    findById: async (id: string) => users.get(id) ?? null,
    findByEmail: async (email: string) =>
      [...users.values()].find((user) => user.email === email.toLowerCase()) ?? null,
    create: async (user: NewUser) => {
      if ([...users.values()].some((other) => other.email === user.email)) throw new DuplicateKeyError();
      const record = { ...user, id: `u${(next += 1)}`, sessionVersion: 0, emailVerified: user.emailVerified ?? true };
      users.set(record.id, record);
      return record;
    },
  } as unknown as UserStore;
  const identityStore: IdentityStore = {
    find: async (issuer, subject) => links.get(`${issuer} ${subject}`) ?? null,
    listByUser: async (userId) => [...links.values()].filter((link) => link.userId === userId),
    link: async (link) => {
      if (links.has(`${link.issuer} ${link.subject}`)) throw new DuplicateKeyError();
      const linked = { ...link, linkedAt: new Date() };
      links.set(`${link.issuer} ${link.subject}`, linked);
      return linked;
    },
    unlink: async (userId, issuer) => {
      const gone = [...links.entries()].filter(([, link]) => link.userId === userId && link.issuer === issuer);
      for (const [key] of gone) links.delete(key);
      return gone.length;
    },
    removeUser: async (userId) => {
      const gone = [...links.entries()].filter(([, link]) => link.userId === userId);
      for (const [key] of gone) links.delete(key);
      return gone.length;
    },
  };
  /** Passkeys by user (a count): another way in. */
  const keys = new Map<string, number>();
  // Synchronous between reading and deleting, so atomic here as the real stores are under their lock.
  const methods: Pick<SignInMethodStore, 'removeUnlessLast'> = {
    removeUnlessLast: async (userId, removal, keeps) => {
      if (!('issuer' in removal)) throw new Error('only identities here');
      const user = users.get(userId);
      const mine = [...links.entries()].filter(([, link]) => link.userId === userId);
      const going = mine.filter(([, link]) => link.issuer === removal.issuer);
      if (!user || going.length === 0) return { outcome: 'not-found' };
      if (
        !keeps({
          passwordHash: user.passwordHash,
          passkeys: keys.get(userId) ?? 0,
          identities: mine.length - going.length,
        })
      )
        return { outcome: 'last-way' };
      for (const [key] of going) links.delete(key);
      return { outcome: 'removed', passkeys: [], identities: going.map(([, link]) => link) };
    },
  };
  return { users, links, keys, userStore, identityStore, methods };
}

describe('OidcAccounts', () => {
  it('creates a user without a password, then finds it by the link', async () => {
    const { userStore, identityStore, methods } = memoryStores();
    const accounts = new OidcAccounts(userStore, identityStore, methods);
    const first = await accounts.resolve(open, identity());
    expect(first).toMatchObject({
      ok: true,
      how: 'created',
      user: { email: 'ada@example.com', passwordHash: NO_PASSWORD, role: 'user', name: 'Ada', emailVerified: true },
    });
    const again = await accounts.resolve(open, identity({ email: 'changed@example.com', emailVerified: false }));
    expect(again).toMatchObject({ ok: true, how: 'linked', user: { id: (first as { user: UserRecord }).user.id } });
  });

  it('drops a link whose user is gone and starts afresh', async () => {
    const { users, links, userStore, identityStore, methods } = memoryStores();
    const accounts = new OidcAccounts(userStore, identityStore, methods);
    const first = (await accounts.resolve(open, identity())) as { user: UserRecord };
    users.delete(first.user.id);
    expect(await accounts.resolve({ ...open, registration: false }, identity())).toEqual({
      ok: false,
      refused: 'registration-closed',
    });
    expect(links.size).toBe(0);
  });

  it('two first sign-ins racing: the one that loses the user or the link uses the winner’s', async () => {
    const { userStore, identityStore, methods } = memoryStores();
    const accounts = new OidcAccounts(userStore, identityStore, methods);
    const [one, two] = await Promise.all([accounts.resolve(open, identity()), accounts.resolve(open, identity())]);
    expect(one.ok && two.ok).toBe(true);
    expect((one as { user: UserRecord }).user.id).toBe((two as { user: UserRecord }).user.id);
    expect(await identityStore.listByUser((one as { user: UserRecord }).user.id)).toHaveLength(1);

    // A local account holding the address: both link it, one link stands, both sign in to it.
    const local = await userStore.create({ email: 'grace@example.com', passwordHash: 'h', role: 'user', name: null });
    const racing = await Promise.all([
      accounts.resolve(open, identity({ subject: 's2', email: 'grace@example.com' })),
      accounts.resolve(open, identity({ subject: 's2', email: 'grace@example.com' })),
    ]);
    expect(racing.map((result) => (result as { user: UserRecord }).user.id)).toEqual([local.id, local.id]);
    expect(racing.map((result) => (result as { how: string }).how).sort()).toEqual(['email', 'linked']);
  });

  it('unlinks unless it is the last way in', async () => {
    const { users, userStore, identityStore, methods } = memoryStores();
    const accounts = new OidcAccounts(userStore, identityStore, methods);
    const { user } = (await accounts.resolve(open, identity())) as { user: UserRecord };
    expect(await accounts.unlink(user, 'https://other.example.com')).toBe('not-linked');
    expect(await accounts.unlink(user, ISSUER)).toBe('last-way');
    await identityStore.link({
      issuer: 'https://other.example.com',
      subject: 'x',
      userId: user.id,
      provider: 'google',
    });
    expect(await accounts.unlink(user, ISSUER)).toBe(1);
    users.set(user.id, { ...user, passwordHash: '$argon2id$…' }); // what the store reads under its lock, not the caller's copy
    expect(await accounts.unlink(user, 'https://other.example.com')).toBe(1);
  });

  it('counts a passkey as a way in: a password-less user with one unlinks their last provider', async () => {
    const { userStore, identityStore, methods, keys } = memoryStores();
    const accounts = new OidcAccounts(userStore, identityStore, methods);
    const { user } = (await accounts.resolve(open, identity())) as { user: UserRecord };
    expect(await accounts.unlink(user, ISSUER)).toBe('last-way');
    keys.set(user.id, 1);
    expect(await accounts.unlink(user, ISSUER)).toBe(1);
  });
});
