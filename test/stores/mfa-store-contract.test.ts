import { createHash, randomBytes } from 'node:crypto';
import { mfaStore } from '../../src/auth/stores/definitions';
import type { MfaStore } from '../../src/auth/stores/mfa-store';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';
import { registeredStores } from '../support/registered-stores';

// The two-factor store on every engine (engines as in store-contract): one pending or confirmed credential
// per user, confirmation bound to the secret it was checked against, a time step used once even under
// racing requests, recovery codes used once, and removal of everything of a user and nothing else.

const digest = () => createHash('sha256').update(randomBytes(32)).digest('hex');
const userId = () => `u-${randomBytes(6).toString('hex')}`;

const engines = testEngines();

for (const target of engines) {
  (target.skipReason ? describe.skip : describe)(`mfa store on ${target.label}`, () => {
    const engine = useEngineDatabase(target, registeredStores, { DATABASE_TIMEOUT: '2s' });
    let store: MfaStore;
    beforeAll(() => {
      store = engine.database().store(mfaStore);
    });
    const confirmed = async (id: string, step = 1000, codes: string[] = [digest(), digest()]) => {
      await store.begin(id, 'sealed-1');
      expect(await store.confirm(id, 'sealed-1', step, codes)).toBe(true);
      return codes;
    };

    it('keeps one credential per user: a new enrolment replaces a pending one, never a confirmed one', async () => {
      const id = userId();
      expect(await store.find(id)).toBeNull();
      expect(await store.begin(id, 'sealed-1')).toBe(true);
      expect(await store.begin(id, 'sealed-2')).toBe(true);
      expect(await store.find(id)).toEqual({ userId: id, secret: 'sealed-2', confirmed: false, lastStep: null });
      expect(await store.confirm(id, 'sealed-1', 5, [digest()])).toBe(false); // the secret checked is no longer the pending one
      expect(await store.confirm(id, 'sealed-2', 5, [digest()])).toBe(true);
      expect(await store.begin(id, 'sealed-3')).toBe(false);
      expect(await store.find(id)).toEqual({ userId: id, secret: 'sealed-2', confirmed: true, lastStep: 5 });
      expect(await store.confirm(id, 'sealed-2', 6, [digest()])).toBe(false); // confirmed already
    });

    it('lets one of racing confirmations of one enrolment win, and keeps exactly the codes that one was given', async () => {
      const id = userId();
      await store.begin(id, 'sealed-1');
      const codeSets = Array.from({ length: 6 }, () => [digest(), digest(), digest()]);
      const results = await Promise.all(
        codeSets.map((codes, index) => store.confirm(id, 'sealed-1', 100 + index, codes)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(await store.find(id)).toEqual({ userId: id, secret: 'sealed-1', confirmed: true, lastStep: 100 + winner });
      expect(await store.recoveryCodesLeft(id)).toBe(3);
      for (const [index, codes] of codeSets.entries())
        if (index !== winner) expect(await store.useRecoveryCode(id, codes[0]!)).toBe(false);
      for (const code of codeSets[winner]!) expect(await store.useRecoveryCode(id, code)).toBe(true);
      expect(await store.recoveryCodesLeft(id)).toBe(0);
    });

    it('accepts each time step once, later steps only, one winner among racing uses', async () => {
      const id = userId();
      await confirmed(id, 59_851_979);
      expect(await store.useStep(id, 59_851_979)).toBe(false); // the confirmation's own step
      expect(await store.useStep(id, 59_851_978)).toBe(false);
      const results = await Promise.all(Array.from({ length: 10 }, () => store.useStep(id, 59_851_980)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await store.find(id))?.lastStep).toBe(59_851_980);
      expect(await store.useStep(userId(), 1)).toBe(false); // no credential
    });

    it('uses a recovery code once (of racing uses one wins), only for its user, and counts what is left', async () => {
      const id = userId();
      const [first, second] = await confirmed(id);
      expect(await store.useRecoveryCode(userId(), first!)).toBe(false);
      const results = await Promise.all(Array.from({ length: 6 }, () => store.useRecoveryCode(id, first!)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.recoveryCodesLeft(id)).toBe(1);
      expect(await store.useRecoveryCode(id, second!)).toBe(true);
      expect(await store.recoveryCodesLeft(id)).toBe(0);
    });

    it('replaces the recovery codes of a confirmed credential only, the old ones void; racing replacements leave one set', async () => {
      const id = userId();
      expect(await store.replaceRecoveryCodes(id, [digest()])).toBe(false); // no credential
      await store.begin(id, 'sealed-1');
      expect(await store.replaceRecoveryCodes(id, [digest()])).toBe(false); // not confirmed yet
      const old = digest();
      expect(await store.confirm(id, 'sealed-1', 1000, [old])).toBe(true);
      const fresh = [digest(), digest(), digest()];
      expect(await store.replaceRecoveryCodes(id, fresh)).toBe(true);
      expect(await store.useRecoveryCode(id, old)).toBe(false);
      expect(await store.recoveryCodesLeft(id)).toBe(3);
      const sets = Array.from({ length: 5 }, () => [digest(), digest()]);
      expect(await Promise.all(sets.map((codes) => store.replaceRecoveryCodes(id, codes)))).toEqual(
        sets.map(() => true),
      );
      expect(await store.recoveryCodesLeft(id)).toBe(2); // one set, never two merged
      const usable = await Promise.all(sets.map((codes) => store.useRecoveryCode(id, codes[0]!)));
      expect(usable.filter(Boolean)).toHaveLength(1);
    });

    it('reseals only the secret it was given, and removes everything of one user and nothing else', async () => {
      const [id, other] = [userId(), userId()];
      await confirmed(id);
      await confirmed(other);
      await store.reseal(id, 'not-the-stored-one', 'sealed-x');
      expect((await store.find(id))?.secret).toBe('sealed-1');
      await store.reseal(id, 'sealed-1', 'sealed-2');
      expect((await store.find(id))?.secret).toBe('sealed-2');
      expect(await store.remove(id)).toBe(true);
      expect(await store.remove(id)).toBe(false);
      expect(await store.find(id)).toBeNull();
      expect(await store.recoveryCodesLeft(id)).toBe(0);
      expect(await store.recoveryCodesLeft(other)).toBe(2);
      expect(await store.begin(id, 'sealed-again')).toBe(true); // enrolling anew after removal
    });
  });
}
