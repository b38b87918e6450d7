import { randomBytes } from 'node:crypto';
import { identityStore } from '../../src/auth/stores/definitions';
import type { IdentityStore } from '../../src/auth/stores/identity-store';
import { DuplicateKeyError } from '../../src/stores/errors';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';
import { registeredStores } from '../support/registered-stores';

// The linked-identity store on every engine (engines as in store-contract): (issuer, subject) linked once,
// compared exactly (a subject differing in case is another end-user), listed and removed by user.

const userId = () => `u-${randomBytes(6).toString('hex')}`;
const issuer = () => `https://idp-${randomBytes(4).toString('hex')}.example.com`;

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`linked identity store on ${target.label}`, () => {
    const engine = useEngineDatabase(target, registeredStores, { DATABASE_TIMEOUT: '2s' });
    let store: IdentityStore;
    beforeAll(() => {
      store = engine.database().store(identityStore);
    });

    it('links (issuer, subject) once, exactly as given', async () => {
      const [iss, alice, bob] = [issuer(), userId(), userId()];
      const linked = await store.link({ issuer: iss, subject: 'Sub-1', userId: alice, provider: 'corp' });
      expect(linked).toEqual({
        issuer: iss,
        subject: 'Sub-1',
        userId: alice,
        provider: 'corp',
        linkedAt: expect.any(Date),
      });
      await expect(store.link({ issuer: iss, subject: 'Sub-1', userId: bob, provider: 'corp' })).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
      expect(await store.find(iss, 'Sub-1')).toEqual({ ...linked, linkedAt: expect.any(Date) });
      expect((await store.find(iss, 'Sub-1'))!.linkedAt.getTime()).toBe(linked.linkedAt.getTime());
      // Another case, another issuer: other identities (the binary collation on MySQL and SQL Server).
      expect(await store.find(iss, 'sub-1')).toBeNull();
      expect(await store.find(iss.toUpperCase(), 'Sub-1')).toBeNull();
      await store.link({ issuer: iss, subject: 'sub-1', userId: bob, provider: 'corp' });
      expect((await store.find(iss, 'sub-1'))!.userId).toBe(bob);
    });

    it('lists a user’s identities oldest first, unlinks one issuer, removes all of a user and nobody else’s', async () => {
      const [first, second, user, other] = [issuer(), issuer(), userId(), userId()];
      await store.link({ issuer: first, subject: 's1', userId: user, provider: 'corp' });
      await new Promise((resolve) => setTimeout(resolve, 5));
      await store.link({ issuer: second, subject: 's2', userId: user, provider: 'google' });
      await store.link({ issuer: first, subject: 's3', userId: other, provider: 'corp' });
      expect((await store.listByUser(user)).map((identity) => identity.provider)).toEqual(['corp', 'google']);
      expect(await store.unlink(user, first)).toBe(1);
      expect(await store.unlink(user, first)).toBe(0);
      expect((await store.listByUser(user)).map((identity) => identity.issuer)).toEqual([second]);
      expect(await store.removeUser(user)).toBe(1);
      expect(await store.listByUser(user)).toEqual([]);
      expect(await store.listByUser(other)).toHaveLength(1);
    });
  });
}
