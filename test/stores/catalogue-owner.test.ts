import { createResourceTable, makeCatalogue, type SqlMigration } from '../../src/modules/kit';
import { defineStore } from '../../src/stores/kit/definition';
import { newId } from '../../src/stores/ids';
import type { SqlDatabase } from '../../src/stores/sql/sql-database';
import { useEngineDatabase } from '../support/engine-database';
import { testEngines } from '../support/engines';

// A resource made a catalogue (catalogue-owner.ts, what `npm run new:field -- <module> --read … --write admin`
// writes): refused, naming the values, while records of two owners share a unique key's values; then every
// record is the catalogue's.

const TABLE = 'kit_made_catalogue';
const migrations: SqlMigration[] = [
  {
    name: 'kit-made-catalogue-0001-create',
    up: (queryInterface) => createResourceTable(queryInterface, TABLE, (c) => c.string('name'), { unique: [['name']] }),
    down: (queryInterface) => queryInterface.dropTable(TABLE),
  },
];
const store = defineStore({ name: 'kit-made-catalogue', migrations, relational: () => ({}), mongodb: () => ({}) });

for (const target of testEngines().filter((engine) => engine.engine !== 'mongodb' && engine.engine !== 'mssql')) {
  (target.skipReason ? describe.skip : describe)(`a resource made a catalogue on ${target.label}`, () => {
    const opened = useEngineDatabase(target, [store]);
    const qi = () => (opened.database() as SqlDatabase).queryInterface();
    const insert = (owner: string, name: string) =>
      qi().bulkInsert(TABLE, [{ id: newId(), owner_id: owner, name, created_at: new Date(), updated_at: new Date() }]);
    const owners = async () =>
      (
        (await qi().sequelize.query(`SELECT owner_id AS "owner" FROM ${TABLE} ORDER BY name`))[0] as { owner: string }[]
      ).map((row) => row.owner);

    it('refuses while two owners hold the same name, then makes every record the catalogue’s', async () => {
      await qi().bulkDelete(TABLE, {}); // a database kept from an earlier run starts empty
      await insert('ada', 'Atlas');
      await insert('bo', 'Atlas');
      await insert('bo', 'Borealis');
      await expect(makeCatalogue(qi(), TABLE, [['name']])).rejects.toThrow(
        'cannot make kit_made_catalogue a catalogue: 2 records of different owners share name="Atlas"',
      );
      expect(await owners()).toEqual(['ada', 'bo', 'bo']); // nothing changed
      await qi().bulkDelete(TABLE, { owner_id: 'bo', name: 'Atlas' });
      await makeCatalogue(qi(), TABLE, [['name']]);
      expect(await owners()).toEqual(['catalogue', 'catalogue']);
      await expect(insert('catalogue', 'Atlas')).rejects.toThrow(); // the unique key now holds across the catalogue
    });
  });
}
