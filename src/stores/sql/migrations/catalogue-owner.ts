import type { QueryInterface } from 'sequelize';
import { CATALOGUE_OWNER } from '../../kit/access-policy';
import { firstDuplicate } from './unique-key';

// A resource whose records had owners made a catalogue (`npm run new:field -- rooms --read authenticated
// --write admin`): every record becomes the catalogue's (access-policy.ts), so that its unique keys, per owner
// as every kit key is, now hold across all of them. Values two owners both hold would clash: counted first,
// and the change refused, naming one, before anything is written.

/** Makes every record of `table` the catalogue's, after checking that no unique key would clash once they share the owner. */
export async function makeCatalogue(
  queryInterface: QueryInterface,
  table: string,
  unique: readonly (readonly string[])[] = [],
): Promise<void> {
  for (const key of unique) {
    const duplicate = await firstDuplicate(queryInterface, table, key);
    if (!duplicate) continue;
    const values = key.map((column) => `${column}=${JSON.stringify(duplicate.row[column])}`).join(', ');
    throw new Error(
      `cannot make ${table} a catalogue: ${duplicate.count} records of different owners share ${values}, which its unique key (${key.join(', ')}) allows once; make them differ (or delete some), then run the migration again`,
    );
  }
  const owner = queryInterface.quoteIdentifier('owner_id');
  await queryInterface.sequelize.query(
    `UPDATE ${queryInterface.quoteIdentifier(table)} SET ${owner} = :catalogue WHERE ${owner} <> :catalogue`,
    { replacements: { catalogue: CATALOGUE_OWNER } },
  );
}
