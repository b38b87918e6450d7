import { select } from '../select';
import { constraintPart, type CheckDdl } from './check-ddl';

// SQL Server: N'…' literals; a length by DATALENGTH, since LEN ignores trailing spaces (NVARCHAR's UTF-16
// counts 2 bytes a unit, at least 2 a character); no regular expressions in a CHECK. An ALTER takes one action,
// so a replacement is a DROP and an ADD, held together by the migration's transaction; sp_rename renames.

export const mssqlChecks: CheckDdl = {
  literal: (value) => `N'${value.replace(/'/g, "''")}'`,
  minLength: (column, least) => `DATALENGTH(${column}) >= ${least * 2}`,
  async constraints(queryInterface, table) {
    const rows = await select(
      queryInterface,
      'SELECT name AS [name], definition AS [definition] FROM sys.check_constraints WHERE parent_object_id = OBJECT_ID(:table)',
      { table },
    );
    return new Map(rows.map((row) => [String(row.name), String(row.definition)]));
  },
  async replace(queryInterface, table, name, exists, expression) {
    const quotedTable = queryInterface.quoteIdentifier(table);
    if (exists)
      await queryInterface.sequelize.query(
        `ALTER TABLE ${quotedTable} DROP CONSTRAINT ${queryInterface.quoteIdentifier(name)}`,
      );
    if (expression)
      await queryInterface.sequelize.query(
        `ALTER TABLE ${quotedTable} ADD ${constraintPart(queryInterface, name, expression)}`,
      );
  },
  async rename(queryInterface, _table, before, after) {
    await queryInterface.sequelize.query(`EXEC sp_rename N'${before}', N'${after}', N'OBJECT'`);
  },
};
