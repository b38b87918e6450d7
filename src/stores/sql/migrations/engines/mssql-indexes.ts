import { addPlainly, type IndexDdl } from './index-ddl';

// SQL Server: a plain CREATE INDEX (ONLINE = ON is an Enterprise feature: a short lock elsewhere). Its `=`
// pads strings ('a' = 'a '), so a unique key over a string also indexes the string's byte length, a persisted
// computed `<column>_bytes`, made here when missing; a filtered index leaves the nulls out.

export const mssqlIndexes: IndexDdl = {
  addOnline: addPlainly,
  async uniqueKeyExtras(queryInterface, table, columns) {
    const described = await queryInterface.describeTable(table);
    const quote = (identifier: string) => queryInterface.quoteIdentifier(identifier);
    const lengths: string[] = [];
    for (const column of columns) {
      if (!/CHAR/i.test(described[column]?.type ?? '')) continue;
      const length = `${column}_bytes`;
      if (!(length in described))
        await queryInterface.sequelize.query(
          `ALTER TABLE ${quote(table)} ADD ${quote(length)} AS DATALENGTH(${quote(column)}) PERSISTED`,
        );
      lengths.push(length);
    }
    return lengths;
  },
  partialUniqueKeys: true,
};
