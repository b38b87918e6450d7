import { catalogQueries } from './catalog-ddl';

// SQL Server: sys.columns and sys.foreign_keys.

export const mssqlCatalog = catalogQueries({
  collations:
    'SELECT c.name AS [name], c.collation_name AS [collation] FROM sys.columns c WHERE c.object_id = OBJECT_ID(:table)',
  foreignKeys: `SELECT c.name AS [column], t.name AS [target], fk.delete_referential_action_desc AS [rule]
       FROM sys.foreign_keys fk
       JOIN sys.foreign_key_columns fkc ON fkc.constraint_object_id = fk.object_id
       JOIN sys.columns c ON c.object_id = fkc.parent_object_id AND c.column_id = fkc.parent_column_id
       JOIN sys.tables t ON t.object_id = fkc.referenced_object_id
       WHERE fk.parent_object_id = OBJECT_ID(:table)`,
});
