import { catalogQueries } from './catalog-ddl';

// MySQL/MariaDB: information_schema, in the connection's database.

export const mysqlCatalog = catalogQueries({
  collations:
    'SELECT COLUMN_NAME AS `name`, COLLATION_NAME AS `collation` FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = :table',
  foreignKeys:
    'SELECT k.COLUMN_NAME AS `column`, k.REFERENCED_TABLE_NAME AS `target`, r.DELETE_RULE AS `rule` FROM information_schema.KEY_COLUMN_USAGE k ' +
    'JOIN information_schema.REFERENTIAL_CONSTRAINTS r ON r.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND r.CONSTRAINT_NAME = k.CONSTRAINT_NAME ' +
    'WHERE k.TABLE_SCHEMA = DATABASE() AND k.TABLE_NAME = :table AND k.REFERENCED_TABLE_NAME IS NOT NULL',
});
