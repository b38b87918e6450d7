import { catalogQueries } from './catalog-ddl';

// PostgreSQL: information_schema, in the current schema.

export const postgresCatalog = catalogQueries({
  collations: `SELECT column_name AS "name", collation_name AS "collation" FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = :table`,
  foreignKeys: `SELECT kcu.column_name AS "column", ccu.table_name AS "target", rc.delete_rule AS "rule"
       FROM information_schema.referential_constraints rc
       JOIN information_schema.key_column_usage kcu ON kcu.constraint_schema = rc.constraint_schema AND kcu.constraint_name = rc.constraint_name
       JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_schema = rc.constraint_schema AND ccu.constraint_name = rc.constraint_name
       WHERE kcu.table_schema = current_schema() AND kcu.table_name = :table`,
});
