import { randomBytes } from 'node:crypto';
import { passkeyStore } from '../../src/auth/stores/definitions';
import type { NewPasskey, PasskeyStore } from '../../src/auth/stores/passkey-store';
import { DuplicateKeyError } from '../../src/stores/errors';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';
import { registeredStores } from '../support/registered-stores';

// The passkey store on every engine (engines as in store-contract): a credential id (bytes) registered once,
// compared as bytes; listed by user oldest first; the counter moved forward by one conditional update only.

const userId = () => `u-${randomBytes(6).toString('hex')}`;
const passkey = (user: string, credentialId = randomBytes(32)): NewPasskey => ({
  userId: user,
  credentialId,
  publicKey: randomBytes(77),
  counter: 0,
  transports: ['internal', 'hybrid'],
  name: 'Laptop',
});

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`passkey store on ${target.label}`, () => {
    const engine = useEngineDatabase(target, registeredStores, { DATABASE_TIMEOUT: '2s' });
    let store: PasskeyStore;
    beforeAll(() => {
      store = engine.database().store(passkeyStore);
    });

    it('registers a credential id once, and finds it by its exact bytes', async () => {
      const alice = userId();
      const id = Buffer.concat([Buffer.from([0, 255, 0x41]), randomBytes(1020)]); // the longest id WebAuthn allows, with a NUL and high bytes
      const added = await store.add({ ...passkey(alice, id), counter: 7 });
      expect(added).toEqual({
        ...passkey(alice, id),
        publicKey: expect.any(Buffer),
        counter: 7,
        id: expect.any(String),
        createdAt: expect.any(Date),
        lastUsedAt: null,
      });
      await expect(store.add(passkey(userId(), Buffer.from(id)))).rejects.toBeInstanceOf(DuplicateKeyError);
      const found = await store.findByCredentialId(Buffer.from(id));
      expect(found).toEqual({ ...added, createdAt: expect.any(Date) });
      expect(found!.createdAt.getTime()).toBe(added.createdAt.getTime());
      expect(found!.credentialId.equals(id)).toBe(true);
      const upper = Buffer.from(id);
      upper[2] = 0x61; // 'A' → 'a': another credential (bytes, not text under a case-insensitive collation)
      expect(await store.findByCredentialId(upper)).toBeNull();
      expect(await store.findByCredentialId(id.subarray(0, 1022))).toBeNull();
    });

    it('moves the counter forward only, records the use, and keeps 0 for authenticators without one', async () => {
      const user = userId();
      const counted = await store.add({ ...passkey(user), counter: 5 });
      const at = new Date('2026-03-04T05:06:07.890Z');
      expect(await store.recordUse(counted.id, 5, at)).toBe(false); // stood still: a clone
      expect(await store.recordUse(counted.id, 4, at)).toBe(false); // went backwards
      expect(await store.recordUse(counted.id, 0, at)).toBe(false);
      expect(await store.recordUse(counted.id, 6, at)).toBe(true);
      expect(await store.findByCredentialId(counted.credentialId)).toMatchObject({ counter: 6, lastUsedAt: at });
      const racing = await Promise.all([
        store.recordUse(counted.id, 9, at),
        store.recordUse(counted.id, 9, at),
        store.recordUse(counted.id, 9, at),
      ]);
      expect(racing.filter(Boolean)).toHaveLength(1);
      const uncounted = await store.add(passkey(user));
      expect(await store.recordUse(uncounted.id, 0, at)).toBe(true);
      expect(await store.recordUse(uncounted.id, 0, at)).toBe(true);
      expect(await store.recordUse(uncounted.id, 2 ** 32 - 1, at)).toBe(true); // the largest counter an authenticator can send
      expect((await store.findByCredentialId(uncounted.credentialId))!.counter).toBe(2 ** 32 - 1);
      expect(await store.recordUse('0190c1f0-0000-7000-8000-000000000000', 10, at)).toBe(false); // gone
    });

    it('lists a user’s passkeys oldest first, removes one of the user’s own, every one of a user, nobody else’s', async () => {
      const [user, other] = [userId(), userId()];
      const first = await store.add({ ...passkey(user), name: 'First' });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await store.add({ ...passkey(user), name: 'Second', transports: [] });
      const others = await store.add(passkey(other));
      expect((await store.listByUser(user)).map((each) => [each.name, each.transports])).toEqual([
        ['First', ['internal', 'hybrid']],
        ['Second', []],
      ]);
      expect(await store.remove(other, first.id)).toBe(0); // not theirs
      expect(await store.remove(user, first.id)).toBe(1);
      expect(await store.remove(user, first.id)).toBe(0);
      expect((await store.listByUser(user)).map((each) => each.id)).toEqual([second.id]);
      expect(await store.removeUser(user)).toBe(1);
      expect(await store.listByUser(user)).toEqual([]);
      expect((await store.listByUser(other)).map((each) => each.id)).toEqual([others.id]);
    });
  });
}
